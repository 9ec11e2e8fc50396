/// Bounds on the rate of change of θ = server time − monotonic time: the local clock's frequency error
/// relative to the server, dimensionless (1e-6 is one part per million).
///
/// A local clock that runs slow by 50 ppm makes θ grow by 50 µs per second: rate = +5e-5.
package struct RateInterval: Sendable, Hashable, Codable {
    /// The smallest rate consistent with the observations.
    package let lower: Double
    /// The largest rate consistent with the observations.
    package let upper: Double
    /// The best estimate, inside the bounds.
    package let estimate: Double

    /// Creates rate bounds; the estimate is clamped into them.
    package init(lower: Double, upper: Double, estimate: Double? = nil) {
        precondition(lower <= upper, "empty rate interval")
        self.lower = lower
        self.upper = upper
        self.estimate = min(max(estimate ?? (lower + upper) / 2, lower), upper)
    }

    /// Rebuilds bounds published by a writer that already checked them (no precondition on the hot path).
    @usableFromInline
    init(trustedLower lower: Double, upper: Double, estimate: Double) {
        self.lower = lower
        self.upper = max(lower, upper)
        self.estimate = estimate
    }

    /// Decodes rate bounds, rejecting empty or non-finite ones.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let lower = try container.decode(Double.self, forKey: .lower)
        let upper = try container.decode(Double.self, forKey: .upper)
        let estimate = try container.decode(Double.self, forKey: .estimate)
        guard lower.isFinite, upper.isFinite, estimate.isFinite, lower <= upper else {
            throw DecodingError.dataCorruptedError(forKey: .upper, in: container, debugDescription: "invalid rate bounds")
        }
        self.init(lower: lower, upper: upper, estimate: estimate)
    }

    /// Symmetric bounds of ±`maximum` around zero (the prior: the clock's specified tolerance).
    package static func symmetric(_ maximum: Double) -> RateInterval {
        RateInterval(lower: -abs(maximum), upper: abs(maximum), estimate: 0)
    }

    /// The largest magnitude a rate in the bounds can have.
    package var maxMagnitude: Double { max(abs(lower), abs(upper)) }
    /// The width of the bounds.
    package var width: Double { upper - lower }

    /// The common part of two rate intervals, or `nil` when disjoint; the estimate is this one's,
    /// clamped.
    package func intersection(_ other: RateInterval) -> RateInterval? {
        let lo = max(lower, other.lower)
        let hi = min(upper, other.upper)
        return lo <= hi ? RateInterval(lower: lo, upper: hi, estimate: estimate) : nil
    }

    /// Bounds on θ carried `elapsed` nanoseconds forward (or backward, when negative) in time.
    /// - Parameters:
    ///   - interval: Bounds on θ at the start.
    ///   - elapsed: Nanoseconds on the local clock since then.
    /// - Returns: Bounds on θ at the end, for any rate inside these bounds.
    /// - Complexity: O(1).
    @inlinable
    package func age(_ interval: OffsetInterval, by elapsed: Double) -> OffsetInterval {
        let (lo, hi) = elapsed >= 0 ? (lower * elapsed, upper * elapsed) : (upper * elapsed, lower * elapsed)
        let shiftedLower = interval.lower.saturatingAdd(Int64(clamping: lo.rounded(.down)))
        let shiftedUpper = interval.upper.saturatingAdd(Int64(clamping: hi.rounded(.up)))
        return OffsetInterval(uncheckedLower: shiftedLower, upper: max(shiftedLower, shiftedUpper))
    }
}
