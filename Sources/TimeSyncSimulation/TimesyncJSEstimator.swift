import TimeSync

/// timesync.js-style: over the last ten samples, the mean offset of those within one standard
/// deviation of the mean. No drift handling; bounds are the mean half-width of the samples used,
/// widened at the maximum drift as they age.
package struct TimesyncJSEstimator: OffsetEstimator {
    /// How many samples the average looks at.
    package static let windowSize = 10

    /// The drift bound, window size and source timeout it works with.
    package let configuration: EstimatorConfiguration
    private var window: [OffsetSample] = []

    /// Creates an empty estimator.
    package init(_ configuration: EstimatorConfiguration = .init()) { self.configuration = configuration }

    /// The samples it currently keeps.
    package var samples: [OffsetSample] { window }
    /// The sources it currently follows.
    package var sources: [String] { Array(Set(window.map(\.source))).sorted() }

    /// Adds a sample and returns the new outcome.
    package mutating func add(_ sample: OffsetSample) -> EstimatorOutcome {
        window.append(sample)
        if window.count > Self.windowSize { window.removeFirst(window.count - Self.windowSize) }
        return outcome()
    }

    /// Forgets a source and returns the new outcome.
    package mutating func removeSource(_ source: String) -> EstimatorOutcome {
        window.removeAll { $0.source == source }
        return outcome()
    }

    func outcome() -> EstimatorOutcome {
        guard let newest = window.max(by: { $0.time < $1.time }) else { return .noSamples }
        let offsets = window.map { Double($0.offset.midpoint) }
        let mean = offsets.reduce(0, +) / Double(offsets.count)
        let deviation = (offsets.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(offsets.count)).squareRoot()
        let kept = window.filter { abs(Double($0.offset.midpoint) - mean) <= deviation }
        let used = kept.isEmpty ? window : kept
        let center = used.map { Double($0.offset.midpoint) }.reduce(0, +) / Double(used.count)
        let half = used.map { Double($0.offset.halfWidth) }.reduce(0, +) / Double(used.count)
        let bounds = OffsetInterval(exactly: Int64(clamping: center)).widened(by: Int64(clamping: half.rounded(.up)))
        return .calibrated(
            Calibration(time: newest.time, offset: bounds, estimate: Int64(clamping: center), rate: configuration.ratePrior, sources: [newest.source]))
    }
}
