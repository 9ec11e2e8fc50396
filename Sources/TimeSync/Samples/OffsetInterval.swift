/// Hard bounds on a clock offset θ = server time − local time, in nanoseconds.
///
/// This is the one home of TimeSync's interval math: every sample, every strategy and every reading
/// goes through it. An interval is never empty (`lower ≤ upper`); operations that could empty it
/// return `nil` or throw.
package struct OffsetInterval: Sendable, Hashable, Codable {
    /// The smallest offset consistent with the observation, in nanoseconds.
    package let lower: Int64
    /// The largest offset consistent with the observation, in nanoseconds.
    package let upper: Int64

    /// Creates an interval.
    /// - Throws: `SampleError` `.emptyInterval` when `lower > upper`.
    package init(lower: Int64, upper: Int64) throws(SampleError) {
        guard lower <= upper else { throw SampleError(.emptyInterval) }
        self.lower = lower
        self.upper = upper
    }

    /// Decodes an interval, rejecting one whose lower bound exceeds its upper bound.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(lower: container.decode(Int64.self, forKey: .lower), upper: container.decode(Int64.self, forKey: .upper))
    }

    /// An interval of a single point.
    package init(exactly offset: Int64) {
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
    package var midpoint: Int64 { lower / 2 + upper / 2 + (lower % 2 + upper % 2) / 2 }
    /// The width, `upper − lower`.
    package var width: Int64 { upper.saturatingSubtract(lower) }
    /// Half the width: the error bound around ``midpoint``.
    package var halfWidth: Int64 { width / 2 + width % 2 }

    /// Whether `offset` lies inside the bounds.
    package func contains(_ offset: Int64) -> Bool { lower <= offset && offset <= upper }

    /// The interval grown by `amount` on both sides (a negative amount is treated as zero).
    package func widened(by amount: Int64) -> OffsetInterval {
        widened(below: amount, above: amount)
    }

    /// The interval grown by `below` under its lower bound and `above` over its upper bound.
    package func widened(below: Int64, above: Int64) -> OffsetInterval {
        OffsetInterval(
            uncheckedLower: lower.saturatingSubtract(max(0, below)), upper: upper.saturatingAdd(max(0, above)))
    }

    /// The interval moved by `amount`.
    package func shifted(by amount: Int64) -> OffsetInterval {
        OffsetInterval(uncheckedLower: lower.saturatingAdd(amount), upper: upper.saturatingAdd(amount))
    }

    /// The common part of two intervals, or `nil` when they are disjoint.
    package func intersection(_ other: OffsetInterval) -> OffsetInterval? {
        let lo = max(lower, other.lower)
        let hi = min(upper, other.upper)
        return lo <= hi ? OffsetInterval(uncheckedLower: lo, upper: hi) : nil
    }

    /// The smallest interval holding both.
    package func hull(_ other: OffsetInterval) -> OffsetInterval {
        OffsetInterval(uncheckedLower: min(lower, other.lower), upper: max(upper, other.upper))
    }

    /// `value` moved into the interval.
    @inlinable
    package func clamp(_ value: Int64) -> Int64 { min(max(value, lower), upper) }
}

extension OffsetInterval {
    /// Bounds from a four-timestamp exchange: θ ∈ [t3 − t4, t2 − t1].
    ///
    /// The request left at `t1` and the reply arrived at `t4` (local clock); the server received it at
    /// `t2` and answered at `t3` (server clock). Whatever the split of the round trip between the two
    /// directions, the server's clock read `t2` after local `t1` and `t3` before local `t4`.
    /// The midpoint is the classic NTP offset ((t2 − t1) + (t3 − t4)) / 2 and the half-width is
    /// delay / 2, with delay = (t4 − t1) − (t3 − t2).
    /// - Throws: `SampleError` when the reply came before the request, the server answered before
    ///   it received, or the delay is negative.
    package static func exchange(t1: Int64, t2: Int64, t3: Int64, t4: Int64) throws(SampleError) -> OffsetInterval {
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
    /// - Throws: `SampleError` when `t4 < t1` or the resolution is negative.
    package static func timestamp(
        _ serverTime: Int64, resolution: Int64, t1: Int64, t4: Int64
    ) throws(SampleError) -> OffsetInterval {
        guard t4 >= t1 else { throw SampleError(.replyBeforeRequest) }
        guard resolution >= 0 else { throw SampleError(.negativeResolution) }
        return OffsetInterval(
            uncheckedLower: serverTime.saturatingSubtract(t4),
            upper: serverTime.saturatingAdd(resolution).saturatingSubtract(t1))
    }
}

extension OffsetInterval: CustomStringConvertible {
    /// The bounds in seconds: `[-0.001234567 s, +0.002345678 s]`.
    package var description: String {
        "[\(Self.seconds(lower)), \(Self.seconds(upper))]"
    }

    /// Nanoseconds as signed seconds with nine decimals, exact at any magnitude.
    private static func seconds(_ nanoseconds: Int64) -> String {
        let magnitude = nanoseconds.magnitude
        let fraction = String(magnitude % 1_000_000_000)
        return "\(nanoseconds < 0 ? "-" : "+")\(magnitude / 1_000_000_000).\(String(repeating: "0", count: 9 - fraction.count))\(fraction) s"
    }
}
