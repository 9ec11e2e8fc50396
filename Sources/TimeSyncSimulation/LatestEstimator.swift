import TimeSync

/// The latest sample is the calibration (what most hand-rolled clients do).
///
/// All sources form one stream. Bounds are the sample's own, widened at the maximum drift as it ages;
/// no rate is measured.
package struct LatestEstimator: OffsetEstimator {
    /// The drift bound, window size and source timeout it works with.
    package let configuration: EstimatorConfiguration
    private var latest: OffsetSample?

    /// Creates an empty estimator.
    package init(_ configuration: EstimatorConfiguration = .init()) { self.configuration = configuration }

    /// The samples it currently keeps.
    package var samples: [OffsetSample] { latest.map { [$0] } ?? [] }
    /// The sources it currently follows.
    package var sources: [String] { latest.map { [$0.source] } ?? [] }

    /// Adds a sample and returns the new outcome.
    package mutating func add(_ sample: OffsetSample) -> EstimatorOutcome {
        if let latest, latest.time > sample.time { return outcome() }
        latest = sample
        return outcome()
    }

    /// Forgets a source and returns the new outcome.
    package mutating func removeSource(_ source: String) -> EstimatorOutcome {
        if latest?.source == source { latest = nil }
        return outcome()
    }

    func outcome() -> EstimatorOutcome {
        guard let latest else { return .noSamples }
        return .calibrated(Calibration(single: latest, configuration))
    }
}
