/// Hard bounds on a clock offset θ = server time − local time, in nanoseconds.
///
/// This is the one home of TimeSync's interval math: every sample, every strategy and every reading
/// goes through it. An interval is never empty (`lower ≤ upper`); operations that could empty it
/// return `nil` or throw.
public struct OffsetInterval: Sendable, Hashable, Codable {
    /// The smallest offset consistent with the observation, in nanoseconds.
    public let lower: Int64
    /// The largest offset consistent with the observation, in nanoseconds.
    public let upper: Int64

    /// Creates an interval.
    /// - Throws: ``SampleError`` `.emptyInterval` when `lower > upper`.
    public init(lower: Int64, upper: Int64) throws(SampleError) {
        guard lower <= upper else { throw SampleError(.emptyInterval) }
        self.lower = lower
        self.upper = upper
    }

    /// Decodes an interval, rejecting one whose lower bound exceeds its upper bound.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(lower: container.decode(Int64.self, forKey: .lower), upper: container.decode(Int64.self, forKey: .upper))
    }

    /// An interval of a single point.
    public init(exactly offset: Int64) {
        lower = offset
        upper = offset
    }

    @usableFromInline
    init(uncheckedLower lower: Int64, upper: Int64) {
        assert(lower <= upper)
        self.lower = lower
        self.upper = upper
    }

    /// The point in the middle: for a four-timestamp exchange, the classic NTP offset.
    public var midpoint: Int64 { lower / 2 + upper / 2 + (lower % 2 + upper % 2) / 2 }
    /// The width, `upper − lower`.
    public var width: Int64 { upper.saturatingSubtract(lower) }
    /// Half the width: the error bound around ``midpoint``.
    public var halfWidth: Int64 { width / 2 + width % 2 }

    /// Whether `offset` lies inside the bounds.
    public func contains(_ offset: Int64) -> Bool { lower <= offset && offset <= upper }

    /// The interval grown by `amount` on both sides (a negative amount is treated as zero).
    public func widened(by amount: Int64) -> OffsetInterval {
        widened(below: amount, above: amount)
    }

    /// The interval grown by `below` under its lower bound and `above` over its upper bound.
    public func widened(below: Int64, above: Int64) -> OffsetInterval {
        OffsetInterval(
            uncheckedLower: lower.saturatingSubtract(max(0, below)), upper: upper.saturatingAdd(max(0, above)))
    }

    /// The interval moved by `amount`.
    public func shifted(by amount: Int64) -> OffsetInterval {
        OffsetInterval(uncheckedLower: lower.saturatingAdd(amount), upper: upper.saturatingAdd(amount))
    }

    /// The common part of two intervals, or `nil` when they are disjoint.
    public func intersection(_ other: OffsetInterval) -> OffsetInterval? {
        let lo = max(lower, other.lower)
        let hi = min(upper, other.upper)
        return lo <= hi ? OffsetInterval(uncheckedLower: lo, upper: hi) : nil
    }

    /// The smallest interval holding both.
    public func hull(_ other: OffsetInterval) -> OffsetInterval {
        OffsetInterval(uncheckedLower: min(lower, other.lower), upper: max(upper, other.upper))
    }

    /// `value` moved into the interval.
    @inlinable
    public func clamp(_ value: Int64) -> Int64 { min(max(value, lower), upper) }
}

extension OffsetInterval {
    /// Bounds from a four-timestamp exchange: θ ∈ [t3 − t4, t2 − t1].
    ///
    /// The request left at `t1` and the reply arrived at `t4` (local clock); the server received it at
    /// `t2` and answered at `t3` (server clock). Whatever the split of the round trip between the two
    /// directions, the server's clock read `t2` after local `t1` and `t3` before local `t4`.
    /// The midpoint is the classic NTP offset ((t2 − t1) + (t3 − t4)) / 2 and the half-width is
    /// delay / 2, with delay = (t4 − t1) − (t3 − t2).
    /// - Throws: ``SampleError`` when the reply came before the request, the server answered before
    ///   it received, or the delay is negative.
    public static func exchange(t1: Int64, t2: Int64, t3: Int64, t4: Int64) throws(SampleError) -> OffsetInterval {
        guard t4 >= t1 else { throw SampleError(.replyBeforeRequest) }
        guard t3 >= t2 else { throw SampleError(.serverTimestampsReversed) }
        let lower = t3.saturatingSubtract(t4)
        let upper = t2.saturatingSubtract(t1)
        guard lower <= upper else { throw SampleError(.negativeDelay) }
        return OffsetInterval(uncheckedLower: lower, upper: upper)
    }

    /// Bounds from one server timestamp of limited resolution, stamped while a request was in flight:
    /// θ ∈ [S − t4, S + resolution − t1].
    ///
    /// The server's clock read a value in `[S, S + resolution)` at some local instant between `t1` and
    /// `t4`. With `resolution` of one second this is an HTTP `Date` header; of one millisecond, a
    /// millisecond timestamp header.
    /// - Throws: ``SampleError`` when `t4 < t1` or the resolution is negative.
    public static func timestamp(
        _ serverTime: Int64, resolution: Int64, t1: Int64, t4: Int64
    ) throws(SampleError) -> OffsetInterval {
        guard t4 >= t1 else { throw SampleError(.replyBeforeRequest) }
        guard resolution >= 0 else { throw SampleError(.negativeResolution) }
        return OffsetInterval(
            uncheckedLower: serverTime.saturatingSubtract(t4),
            upper: serverTime.saturatingAdd(resolution).saturatingSubtract(t1))
    }
}

/// Why an observation could not become a sample. Bad input changes nothing.
public struct SampleError: Error, Sendable, Hashable, CustomStringConvertible {
    enum Code: Sendable, Hashable {
        case emptyInterval, replyBeforeRequest, serverTimestampsReversed, negativeDelay, negativeResolution
        case negativeUncertainty, emptySourceName, negativeDuration
        case timeOutOfRange, spanTooLong, uncertaintyOutOfRange, resolutionOutOfRange, sourceNameTooLong
        case intervalTooWide
    }

    let code: Code

    init(_ code: Code) { self.code = code }

    /// The interval's lower bound exceeds its upper bound.
    public static let emptyInterval = SampleError(.emptyInterval)
    /// The reply arrived (t4) before the request left (t1).
    public static let replyBeforeRequest = SampleError(.replyBeforeRequest)
    /// The server's transmit time (t3) is before its receive time (t2).
    public static let serverTimestampsReversed = SampleError(.serverTimestampsReversed)
    /// The round trip minus the server's processing time is negative: inconsistent timestamps.
    public static let negativeDelay = SampleError(.negativeDelay)
    /// A timestamp resolution below zero.
    public static let negativeResolution = SampleError(.negativeResolution)
    /// A server-reported uncertainty below zero.
    public static let negativeUncertainty = SampleError(.negativeUncertainty)
    /// A sample without a source name.
    public static let emptySourceName = SampleError(.emptySourceName)
    /// A remaining duration below zero.
    public static let negativeDuration = SampleError(.negativeDuration)
    /// A server time outside ``SampleLimits/serverTimes``, or a monotonic instant outside
    /// ``SampleLimits/monotonicInstants``.
    public static let timeOutOfRange = SampleError(.timeOutOfRange)
    /// An exchange (or a server's processing time) longer than ``SampleLimits/maximumSpan``.
    public static let spanTooLong = SampleError(.spanTooLong)
    /// A server-reported uncertainty above ``SampleLimits/maximumServerUncertainty``.
    public static let uncertaintyOutOfRange = SampleError(.uncertaintyOutOfRange)
    /// A timestamp resolution above ``SampleLimits/maximumResolution``.
    public static let resolutionOutOfRange = SampleError(.resolutionOutOfRange)
    /// A source name longer than ``SampleLimits/maximumSourceNameLength`` bytes.
    public static let sourceNameTooLong = SampleError(.sourceNameTooLong)
    /// Bounds wider than a sample within every limit can have.
    public static let intervalTooWide = SampleError(.intervalTooWide)

    public var description: String {
        switch code {
        case .emptyInterval: "offset interval is empty (lower bound above upper bound)"
        case .replyBeforeRequest: "reply received before the request was sent"
        case .serverTimestampsReversed: "server transmit time is before its receive time"
        case .negativeDelay: "negative round-trip delay: timestamps are inconsistent"
        case .negativeResolution: "negative timestamp resolution"
        case .negativeUncertainty: "negative server uncertainty"
        case .emptySourceName: "source name is empty"
        case .negativeDuration: "negative remaining duration"
        case .timeOutOfRange: "time out of range (server times must lie in 1900–2199)"
        case .spanTooLong: "exchange took longer than \(SampleLimits.maximumSpan)"
        case .uncertaintyOutOfRange: "server uncertainty above \(SampleLimits.maximumServerUncertainty)"
        case .resolutionOutOfRange: "timestamp resolution above \(SampleLimits.maximumResolution)"
        case .sourceNameTooLong: "source name longer than \(SampleLimits.maximumSourceNameLength) bytes"
        case .intervalTooWide: "offset bounds wider than any valid sample's"
        }
    }
}
