import TimeSync

/// An estimator that answers each measurement (each sample added alone) with the next of outcomes
/// computed elsewhere, on the same stream in the same order (``Strategy/replayed(name:outcomes:)``); past their end it answers
/// `EstimatorOutcome/noSamples`.
package struct ReplayedEstimator: OffsetEstimator {
    package let configuration: EstimatorConfiguration
    private let outcomes: [EstimatorOutcome]
    private var next = 0
    private var taken: [OffsetSample] = []

    /// Creates an estimator that replays `outcomes`.
    package init(_ configuration: EstimatorConfiguration = .init(), outcomes: [EstimatorOutcome]) {
        self.configuration = configuration
        self.outcomes = outcomes
    }

    /// `replayed`.
    package var name: String { "replayed" }
    package var samples: [OffsetSample] { taken }
    package var sources: [String] { Array(Set(taken.map(\.source))).sorted() }

    package mutating func add(_ sample: OffsetSample) -> EstimatorOutcome {
        taken.append(sample)
        defer { next += 1 }
        return next < outcomes.count ? outcomes[next] : .noSamples
    }

    /// A measurement's samples, answered with one outcome (the streams carry one per measurement).
    package mutating func add(contentsOf samples: [OffsetSample], history: [OffsetSample]) -> EstimatorOutcome? {
        guard !samples.isEmpty else { return nil }
        taken.append(contentsOf: samples)
        defer { next += 1 }
        return next < outcomes.count ? outcomes[next] : .noSamples
    }

    /// Not replayable: the outcomes were computed without the removal.
    package mutating func removeSource(_ source: String) -> EstimatorOutcome {
        taken.removeAll { $0.source == source }
        return .noSamples
    }
}
