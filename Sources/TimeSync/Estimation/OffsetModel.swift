/// θ = server time − monotonic time as a linear model: the arithmetic of `Calibration` on plain
/// values, cheap to copy and to evaluate.
package struct OffsetModel: Sendable, Hashable {
    /// The anchor instant.
    package var time: MonotonicInstant
    /// Bounds on θ at the anchor.
    package var offset: OffsetInterval
    /// The estimate of θ at the anchor.
    package var estimate: Int64
    /// The rate of change of θ.
    package var rate: RateInterval
    /// The servers' allowed departure from a steady rate, added to the bounds.
    package var slew: SlewAllowance

    /// Creates a model.
    @inlinable
    package init(time: MonotonicInstant, offset: OffsetInterval, estimate: Int64, rate: RateInterval, slew: SlewAllowance = .none) {
        self.time = time
        self.offset = offset
        self.estimate = estimate
        self.rate = rate
        self.slew = slew
    }

    /// The estimate and bounds of θ at a monotonic instant.
    /// - Complexity: O(1), no allocation.
    @inlinable
    package func offset(at instant: MonotonicInstant) -> (estimate: Int64, bounds: OffsetInterval) {
        let elapsed = instant.nanoseconds.saturatingSubtract(time.nanoseconds)
        let bounds = rate.age(offset, by: Double(elapsed)).widened(by: slew.widening(over: elapsed))
        return (bounds.clamp(estimate.saturatingAdd(Int64.driftTerm(rate: rate.estimate, elapsed: elapsed))), bounds)
    }

    /// The estimate of θ at a monotonic instant, without the bounds: the hot path of
    /// ``ServerClock/now``.
    ///
    /// From the anchor on it needs no clamping: the estimate starts inside the bounds and its rate lies
    /// between theirs, so it stays inside (bounds round outward; the drift term is floored, to within
    /// a nanosecond of exact).
    /// - Complexity: O(1): one multiplication.
    @inlinable
    package func estimate(at instant: MonotonicInstant) -> Int64 {
        let elapsed = instant.nanoseconds.saturatingSubtract(time.nanoseconds)
        guard elapsed >= 0 else { return offset(at: instant).estimate }
        return estimate.saturatingAdd(Int64.driftTerm(rate: rate.estimate, elapsed: elapsed))
    }

    /// The monotonic instant at which the estimated server time reaches `serverTime`
    /// (solves t + θ(t) = serverTime, ignoring clamping).
    package func monotonicInstant(forServerTime serverTime: UnixTime) -> MonotonicInstant {
        let target = Double(serverTime.nanoseconds.saturatingSubtract(time.nanoseconds).saturatingSubtract(estimate))
        return MonotonicInstant(nanoseconds: time.nanoseconds.saturatingAdd(Int64(clamping: target / (1 + rate.estimate))))
    }
}
