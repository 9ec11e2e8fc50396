import TimeSync

/// The latest sample is the calibration (what most hand-rolled clients do).
///
/// All sources form one stream. Bounds are the sample's own, widened at the maximum drift as it ages;
/// no rate is measured.
public struct LatestEstimator: OffsetEstimator {
    /// The drift bound, window size and source timeout it works with.
    public let configuration: EstimatorConfiguration
    private var latest: OffsetSample?

    /// Creates an empty estimator.
    public init(_ configuration: EstimatorConfiguration = .init()) { self.configuration = configuration }

    /// The samples it currently keeps.
    public var samples: [OffsetSample] { latest.map { [$0] } ?? [] }
    /// The sources it currently follows.
    public var sources: [String] { latest.map { [$0.source] } ?? [] }

    /// Adds a sample and returns the new outcome.
    public mutating func add(_ sample: OffsetSample) -> EstimatorOutcome {
        if let latest, latest.time > sample.time { return outcome() }
        latest = sample
        return outcome()
    }

    /// Forgets a source and returns the new outcome.
    public mutating func removeSource(_ source: String) -> EstimatorOutcome {
        if latest?.source == source { latest = nil }
        return outcome()
    }

    func outcome() -> EstimatorOutcome {
        guard let latest else { return .noSamples }
        return .calibrated(Calibration(single: latest, configuration))
    }
}
