import TimeSync

/// An exponential moving average of the sample midpoints,
/// `θ ← α·θ_sample + (1 − α)·θ`.
///
/// All sources form one stream. An average has no hard bounds: the reported bounds are the average of
/// the samples' half-widths around the estimate, widened at the maximum drift as they age. The
/// simulator measures how often that holds.
package struct EMAEstimator: OffsetEstimator {
    /// The weight of the newest sample when none is given: 0.2 gives the newest sample the weight of
    /// about the last five.
    package static let defaultAlpha = 0.2

    /// The drift bound, window size and source timeout it works with.
    package let configuration: EstimatorConfiguration
    /// The weight of the newest sample, in (0, 1].
    package let alpha: Double
    private var average: Double?
    private var halfWidth: Double = 0
    private var newest: OffsetSample?

    /// Creates an empty estimator with weight `alpha` (clamped into (0, 1]).
    package init(_ configuration: EstimatorConfiguration = .init(), alpha: Double = EMAEstimator.defaultAlpha) {
        self.configuration = configuration
        self.alpha = alpha.isFinite ? min(max(alpha, 1e-6), 1) : Self.defaultAlpha
    }

    /// The samples it currently keeps.
    package var samples: [OffsetSample] { newest.map { [$0] } ?? [] }
    /// The sources it currently follows.
    package var sources: [String] { newest.map { [$0.source] } ?? [] }

    /// Adds a sample and returns the new outcome.
    package mutating func add(_ sample: OffsetSample) -> EstimatorOutcome {
        let midpoint = Double(sample.offset.midpoint)
        let half = Double(sample.offset.halfWidth)
        if let average {
            self.average = alpha * midpoint + (1 - alpha) * average
            halfWidth = alpha * half + (1 - alpha) * halfWidth
        } else {
            average = midpoint
            halfWidth = half
        }
        if newest == nil || sample.time >= newest!.time { newest = sample }
        return outcome()
    }

    /// Forgets a source and returns the new outcome.
    package mutating func removeSource(_ source: String) -> EstimatorOutcome { outcome() }

    func outcome() -> EstimatorOutcome {
        guard let average, let newest else { return .noSamples }
        let center = Int64(clamping: average)
        let half = Int64(clamping: halfWidth.rounded(.up))
        let bounds = OffsetInterval(exactly: center).widened(by: half)
        return .calibrated(
            Calibration(time: newest.time, offset: bounds, estimate: center, rate: configuration.ratePrior, sources: [newest.source]))
    }
}
