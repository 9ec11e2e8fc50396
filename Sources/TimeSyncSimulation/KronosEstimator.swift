import TimeSync

/// Kronos-style (the iOS NTP library): for each server, the lowest-delay of its last four samples;
/// across servers, the median of those offsets. No drift handling; bounds are the chosen sample's,
/// widened at the maximum drift as it ages.
package struct KronosEstimator: OffsetEstimator {
    /// Kronos sends four packets per server and keeps the fastest.
    package static let samplesPerServer = 4

    /// The drift bound, window size and source timeout it works with.
    package let configuration: EstimatorConfiguration
    private var recent: [String: [OffsetSample]] = [:]

    /// Creates an empty estimator.
    package init(_ configuration: EstimatorConfiguration = .init()) { self.configuration = configuration }

    /// The samples it currently keeps.
    package var samples: [OffsetSample] { recent.keys.sorted().flatMap { recent[$0]! } }
    /// The sources it currently follows.
    package var sources: [String] { recent.keys.sorted() }

    /// Adds a sample and returns the new outcome.
    package mutating func add(_ sample: OffsetSample) -> EstimatorOutcome {
        var window = recent[sample.source, default: []]
        window.append(sample)
        if window.count > Self.samplesPerServer { window.removeFirst(window.count - Self.samplesPerServer) }
        recent[sample.source] = window
        return outcome()
    }

    /// Forgets a source and returns the new outcome.
    package mutating func removeSource(_ source: String) -> EstimatorOutcome {
        recent[source] = nil
        return outcome()
    }

    func outcome() -> EstimatorOutcome {
        let best = recent.values.compactMap { $0.min { $0.delay < $1.delay } }.sorted { $0.offset.midpoint < $1.offset.midpoint }
        guard !best.isEmpty else { return .noSamples }
        return .calibrated(Calibration(single: best[(best.count - 1) / 2], configuration))
    }
}
