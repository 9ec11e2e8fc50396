import TimeSync

/// A time source for tests of code that drives a `TimeSynchronizer`: a server on a
/// ``ManualTimeBase`` that answers at once, its clock ``offset`` ahead of the monotonic clock, known
/// to its uncertainty; it counts its requests and fails while told to.
public final class ScriptedTimeSource: SourceDriver {
    /// The error a measurement throws while ``failing`` is set.
    public struct Unreachable: CodedError {
        /// The one kind of failure a scripted source has.
        public enum Code: Sendable, Hashable {
            /// The source is told to fail.
            case unreachable
        }

        /// Creates the error.
        public init() {}

        /// Which kind of failure this is.
        public var code: Code { .unreachable }

        public var description: String { "Unreachable()" }
    }

    public let name: String
    public let reference: TimeReference
    /// The clocks the server answers on.
    public let timeBase: ManualTimeBase
    private let state: Locked<(offset: Int64, requests: Int, failing: Bool)>
    private let uncertainty: Duration

    /// Creates a source.
    /// - Parameters:
    ///   - name: The source's name.
    ///   - offset: θ, in nanoseconds: the server's clock reads the monotonic clock plus this.
    ///   - base: The time base the server answers on.
    ///   - reference: Which time the source tells.
    ///   - uncertainty: How exactly the server knows its clock (a millisecond by default).
    public init(
        _ name: String, offset: Int64, base: ManualTimeBase, reference: TimeReference = .utc, uncertainty: Duration = .milliseconds(1)
    ) {
        self.name = name
        self.reference = reference
        self.timeBase = base
        self.uncertainty = uncertainty
        state = Locked((offset, 0, false))
    }

    /// θ the server answers with; set it to step the server's clock.
    public var offset: Int64 {
        get { state.withLock { $0.offset } }
        set { state.withLock { $0.offset = newValue } }
    }
    /// Requests so far.
    public var requests: Int { state.withLock { $0.requests } }
    /// While set, requests fail with ``Unreachable``.
    public var failing: Bool {
        get { state.withLock { $0.failing } }
        set { state.withLock { $0.failing = newValue } }
    }

    /// One exchange, at once: t1 = t4 = now, t2 = t3 = now + ``offset``.
    package func measure(until deadline: Deadline) async throws -> [OffsetSample] {
        let (failing, offset) = state.withLock { state in
            state.requests += 1
            return (state.failing, state.offset)
        }
        if failing { throw Unreachable() }
        let now = timeBase.monotonicNow()
        let server = UnixTime(nanoseconds: now.nanoseconds.saturatingAdd(offset))
        return [
            try OffsetSample.exchange(
                source: name, requestSent: now, serverReceive: server, serverTransmit: server, responseReceived: now,
                serverUncertainty: uncertainty)
        ]
    }
}
