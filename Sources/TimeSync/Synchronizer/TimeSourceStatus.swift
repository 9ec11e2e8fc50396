/// What a ``TimeSynchronizer`` knows of one source.
public struct TimeSourceStatus: Sendable, Hashable {
    /// Where the source stands.
    public enum State: String, Sendable, Hashable, Codable {
        /// Its samples agree with the majority the clock follows now.
        case selected
        /// It answers, but outside the majority: its time is not used.
        case falseticker
        /// It answers, but the sources have no majority now: nobody is selected.
        case unselected
        /// Its last reply contradicts its earlier ones and is held until a second reply confirms
        /// a step (or one refutes it); its time is not used meanwhile.
        case suspect
        /// Its last reply was a Kiss-o'-Death (see ``TimeSourceStatus/kissCode``): `RATE` slows the
        /// polling down, `DENY` and `RSTR` stop it.
        case kissed
        /// It answers that its own clock is not synchronized (NTP leap indicator 3 or stratum 16).
        case unsynchronized
        /// Two different replies came to one request: someone on the path answered besides the
        /// server. The exchange was discarded.
        case conflictingReplies
        /// Its last eight polls brought no usable reply.
        case unreachable
        /// No reply yet.
        case pending
        /// A fallback source that is not polled while the main sources answer (its time is not
        /// used unless the clock still follows its earlier samples: then it shows `selected`).
        case standingBy
    }

    /// The source's name.
    public var source: String
    /// Where it stands.
    public var state: State
    /// Its own last measurement of server time − this device's wall clock (the middle of its
    /// sample's bounds), when it answered.
    public var wallClockOffset: Duration?
    /// NTP's reachability register: the last eight polls, newest in the lowest bit.
    public var reachability: UInt8
    /// Polls sent.
    public var polls: Int
    /// For a `kissed` source: the Kiss-o'-Death code (`RATE`, `DENY`, `RSTR`, …).
    public var kissCode: String?
    /// Why its last poll failed, when it did.
    public var lastError: String?
    /// When its last sample was taken (its reply's arrival, on the monotonic clock): how old
    /// ``wallClockOffset`` is.
    public var lastSampleTime: MonotonicInstant? = nil
}
