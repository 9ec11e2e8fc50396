/// What an estimator concluded: θ = server time − monotonic time as a linear model anchored at one
/// monotonic instant, with hard bounds that widen as the anchor ages.
///
/// At a monotonic instant `t` with Δ = t − ``time``:
/// - bounds: `[offset.lower + rate.lower·Δ − s, offset.upper + rate.upper·Δ + s]` (Δ ≥ 0), where
///   `s = min(slew.rate·Δ, slew.limit)` allows for a server whose clock is being slewed (``slew``);
/// - estimate: `estimate + rate.estimate·Δ`, clamped into the bounds.
/// Reading it is a handful of arithmetic operations: ``ServerClock/now`` does exactly this.
package struct Calibration: Sendable, Hashable, Codable {
    /// The anchor: the monotonic instant the bounds refer to.
    package var time: MonotonicInstant
    /// Hard bounds on θ at ``time``, in nanoseconds.
    package var offset: OffsetInterval
    /// The best estimate of θ at ``time``, in nanoseconds; inside ``offset``.
    package var estimate: Int64
    /// Bounds and estimate of the rate at which θ changes (the local clock's frequency error).
    package var rate: RateInterval
    /// The sources that agreed on this calibration.
    package var sources: [String]
    /// How far the servers' clocks may move off their steady rate after ``time`` (a time daemon
    /// slewing them): the bounds widen by it as well.
    package var slew: SlewAllowance

    /// Creates a calibration; the estimate is clamped into the bounds.
    package init(
        time: MonotonicInstant, offset: OffsetInterval, estimate: Int64, rate: RateInterval, sources: [String],
        slew: SlewAllowance = .none
    ) {
        self.time = time
        self.offset = offset
        self.estimate = offset.clamp(estimate)
        self.rate = rate
        self.sources = sources
        self.slew = slew
    }

    /// Decodes a calibration through the same checks as a computed one: the anchor inside
    /// `SampleLimits.monotonicInstants`, a rate within the 1 % drift cap, the estimate clamped into
    /// the bounds.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let time = try container.decode(MonotonicInstant.self, forKey: .time)
        let rate = try container.decode(RateInterval.self, forKey: .rate)
        guard SampleLimits.monotonicInstants.contains(time.nanoseconds) else {
            throw DecodingError.dataCorruptedError(forKey: .time, in: container, debugDescription: "anchor out of range")
        }
        guard rate.maxMagnitude <= EstimatorConfiguration.driftLimit else {
            throw DecodingError.dataCorruptedError(forKey: .rate, in: container, debugDescription: "rate beyond the drift cap")
        }
        self.init(
            time: time, offset: try container.decode(OffsetInterval.self, forKey: .offset),
            estimate: try container.decode(Int64.self, forKey: .estimate), rate: rate,
            sources: try container.decode([String].self, forKey: .sources),
            slew: try container.decodeIfPresent(SlewAllowance.self, forKey: .slew) ?? .none)
    }

    /// The linear model alone (no source names): what ``ServerClock`` publishes to its readers.
    package var model: OffsetModel { OffsetModel(time: time, offset: offset, estimate: estimate, rate: rate, slew: slew) }

    /// The estimate and bounds of θ at a monotonic instant.
    /// - Complexity: O(1), no allocation.
    package func offset(at instant: MonotonicInstant) -> (estimate: Int64, bounds: OffsetInterval) {
        model.offset(at: instant)
    }
}
