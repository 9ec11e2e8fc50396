import TimeSync

/// Why a reply to an NTP request was not used. A rejected reply changes nothing.
///
/// Match on ``code`` (`error.code == .kissOfDeath`); the rest says more about that kind of failure
/// (``kissCode``, ``leap``, and the ``underlying`` decoding or timestamp error).
public struct NTPReplyError: CodedError {
    /// The kinds of rejected reply.
    public enum Code: Sendable, Hashable {
        /// The datagram is not an NTP packet (too short, or a malformed extension area); the
        /// ``NTPReplyError/underlying`` `NTPPacketError` says why.
        case malformedPacket
        /// The origin timestamp is not our transmit timestamp: a stale, stray or spoofed packet.
        case originMismatch
        /// A second reply to a request already answered.
        case duplicate
        /// The packet is not a server (mode 4) reply.
        case notServerMode
        /// The version is neither 3 nor 4.
        case unsupportedVersion
        /// Stratum 0: the server sent a Kiss-o'-Death (see ``NTPReplyError/kissCode``).
        case kissOfDeath
        /// Leap indicator 3 (alarm), stratum 0 without a Kiss-o'-Death code, or stratum 16 or above:
        /// the server's clock is not synchronized.
        case unsynchronized
        /// A zero receive or transmit timestamp.
        case zeroTimestamp
        /// Root delay / 2 + root dispersion over ``NTPReplyLimits/maximumRootDistance``.
        case rootDistanceExceeded
        /// The timestamps contradict each other; the ``NTPReplyError/underlying`` `SampleError`
        /// says how.
        case inconsistentTimestamps
        /// The server's precision exponent is above ``NTPReplyLimits/maximumPrecision``.
        case precisionOutOfRange
        /// Two different replies echoed the request's origin timestamp: someone on the path answered
        /// besides the server (or instead of it).
        case conflictingReplies
    }

    /// Which kind of rejection this is.
    public let code: Code
    /// For `.kissOfDeath`: the code the server sent (`RATE`, `DENY`, `RSTR`, …).
    public let kissCode: NTPReferenceID?
    /// For `.malformedPacket`, the `NTPPacketError` that says why the bytes did not decode; for
    /// `.inconsistentTimestamps`, the `SampleError` that says what was wrong with them.
    public let underlying: (any Error)?
    /// For `.unsynchronized`: the leap indicator the server sent.
    public let leap: NTPLeapIndicator?
    /// For `.unsynchronized`: the stratum the server sent.
    public let stratum: UInt8?
    /// For `.kissOfDeath`: the poll exponent the kiss carries (log2 of the interval, in seconds, the
    /// server asks the client to keep between requests).
    public let kissPoll: Int8?

    init(
        _ code: Code, kissCode: NTPReferenceID? = nil, underlying: (any Error)? = nil, leap: NTPLeapIndicator? = nil,
        stratum: UInt8? = nil, kissPoll: Int8? = nil
    ) {
        self.kissPoll = kissPoll
        self.code = code
        self.kissCode = kissCode
        self.underlying = underlying
        self.leap = leap
        self.stratum = stratum
    }

    /// The datagram is not an NTP packet (too short, or a malformed extension area).
    public static let malformedPacket = NTPReplyError(.malformedPacket)
    /// The origin timestamp is not our transmit timestamp: a stale, stray or spoofed packet.
    public static let originMismatch = NTPReplyError(.originMismatch)
    /// A second reply to a request already answered.
    public static let duplicate = NTPReplyError(.duplicate)
    /// Two different replies echoed this request's origin timestamp: someone on the path answered
    /// besides the server (or instead of it). Neither can be trusted: the exchange is discarded.
    public static let conflictingReplies = NTPReplyError(.conflictingReplies)
    /// The packet is not a server (mode 4) reply.
    public static let notServerMode = NTPReplyError(.notServerMode)
    /// The version is neither 3 nor 4.
    public static let unsupportedVersion = NTPReplyError(.unsupportedVersion)
    /// Stratum 0: the server sent a Kiss-o'-Death; see ``kissCode``, ``kissPoll`` and
    /// ``NTPReferenceID/kissAction``.
    public static let kissOfDeath = NTPReplyError(.kissOfDeath)
    /// Leap indicator 3 (alarm), stratum 0 without a Kiss-o'-Death code, or stratum 16 or above: the
    /// server's clock is not synchronized (see ``leap`` and ``stratum``).
    public static let unsynchronized = NTPReplyError(.unsynchronized)
    /// The server's precision exponent is above ``NTPReplyLimits/maximumPrecision``.
    public static let precisionOutOfRange = NTPReplyError(.precisionOutOfRange)
    /// A zero receive or transmit timestamp.
    public static let zeroTimestamp = NTPReplyError(.zeroTimestamp)
    /// Root delay / 2 + root dispersion over ``NTPReplyLimits/maximumRootDistance``.
    public static let rootDistanceExceeded = NTPReplyError(.rootDistanceExceeded)
    /// The timestamps contradict each other (the server answered before it received, or the
    /// round trip is shorter than the server's processing time); see ``underlying``.
    public static let inconsistentTimestamps = NTPReplyError(.inconsistentTimestamps)

    public var description: String {
        switch code {
        case .malformedPacket: "malformed NTP packet" + (underlying.map { ": \($0)" } ?? "")
        case .originMismatch: "origin timestamp does not match the request (stray or spoofed reply)"
        case .duplicate: "duplicate reply"
        case .conflictingReplies:
            "two different replies to one request: a host on the path may be spoofing the server; exchange discarded"
        case .notServerMode: "not a server-mode reply"
        case .unsupportedVersion: "unsupported NTP version"
        case .kissOfDeath:
            "Kiss-o'-Death" + (kissCode.map { " \($0)" } ?? "")
                + (kissCode == NTPReferenceID.rate ? (kissPoll.map { " (at most one request every 2^\($0) s)" } ?? "") : "")
        case .unsynchronized:
            "server is not synchronized"
                + (leap.map { leap in " (LI \(leap.rawValue), stratum \(stratum.map(String.init) ?? "?"))" } ?? "")
        case .precisionOutOfRange: "server clock precision coarser than the limit"
        case .zeroTimestamp: "zero receive or transmit timestamp"
        case .rootDistanceExceeded: "root distance over the limit"
        case .inconsistentTimestamps: "inconsistent timestamps" + (underlying.map { ": \($0)" } ?? "")
        }
    }
}
