/// Samples carried to one instant and intersected: the one combination of hard bounds that the
/// estimator and the `Date` refinement share.
package enum CarriedIntersection {
    /// Intersects samples carried to `instant`, from the newest back, stopping at the first one that
    /// contradicts the newer ones.
    /// - Parameters:
    ///   - samples: The samples, oldest first; not empty.
    ///   - instant: Where to carry them (normally the newest sample's instant).
    ///   - rate: The rate interval θ may change at.
    ///   - slew: How far the server may move off that rate besides (by each sample's age).
    /// - Returns: The intersection, and the index of the oldest sample in it (0 when all agree).
    /// - Complexity: O(n).
    package static func newestAgreeing(
        _ samples: [OffsetSample], at instant: MonotonicInstant, rate: RateInterval, slew: SlewAllowance = .none
    ) -> (bounds: OffsetInterval, oldest: Int) {
        var oldest = samples.count - 1
        var bounds = carry(samples[oldest], to: instant, rate: rate, slew: slew)
        for index in stride(from: samples.count - 2, through: 0, by: -1) {
            guard let common = bounds.intersection(carry(samples[index], to: instant, rate: rate, slew: slew)) else { break }
            bounds = common
            oldest = index
        }
        return (bounds, oldest)
    }

    /// One sample's bounds at `instant`: its interval carried with `rate`, widened by the slew
    /// allowance for the time between.
    package static func carry(_ sample: OffsetSample, to instant: MonotonicInstant, rate: RateInterval, slew: SlewAllowance) -> OffsetInterval {
        sample.offset(at: instant, rate: rate).widened(by: slew.widening(over: instant.nanoseconds.saturatingSubtract(sample.time.nanoseconds)))
    }
}
