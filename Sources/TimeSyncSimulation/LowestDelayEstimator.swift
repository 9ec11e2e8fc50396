import TimeSync

/// Only a response faster than the fastest seen so far recalibrates.
///
/// All sources form one stream. Bounds are the chosen sample's own, widened at the maximum drift as it
/// ages; no rate is measured.
package struct LowestDelayEstimator: OffsetEstimator {
    /// The drift bound, window size and source timeout it works with.
    package let configuration: EstimatorConfiguration
    private var best: OffsetSample?

    /// Creates an empty estimator.
    package init(_ configuration: EstimatorConfiguration = .init()) { self.configuration = configuration }

    /// The samples it currently keeps.
    package var samples: [OffsetSample] { best.map { [$0] } ?? [] }
    /// The sources it currently follows.
    package var sources: [String] { best.map { [$0.source] } ?? [] }

    /// Adds a sample and returns the new outcome.
    package mutating func add(_ sample: OffsetSample) -> EstimatorOutcome {
        if best == nil || sample.delay < best!.delay { best = sample }
        return outcome()
    }

    /// Forgets a source and returns the new outcome.
    package mutating func removeSource(_ source: String) -> EstimatorOutcome {
        if best?.source == source { best = nil }
        return outcome()
    }

    func outcome() -> EstimatorOutcome {
        guard let best else { return .noSamples }
        return .calibrated(Calibration(single: best, configuration))
    }
}
