/// A way of turning samples into a `Calibration`.
///
/// Estimators are value types with no I/O, so a simulation can run several on the same sample
/// stream and ``ServerClock`` keeps one behind its lock.
package protocol OffsetEstimator: Sendable {
    /// Adds a sample and returns the new outcome.
    mutating func add(_ sample: OffsetSample) -> EstimatorOutcome
    /// Adds one measurement's samples, in order, and returns the outcome after the last (`nil` for
    /// none).
    ///
    /// `history` holds older samples of these sources, restored from a store, offered now that they
    /// answered afresh: they may lengthen a source's history (a better rate) only where they agree
    /// with what it says now, and never change what it says now. An estimator that cannot tell
    /// agreeing history from a step ignores it (the default).
    /// - Complexity: The default adds the samples one by one; `IntersectionEstimator` fits each
    ///   source's window with its history once and votes across sources once.
    mutating func add(contentsOf samples: [OffsetSample], history: [OffsetSample]) -> EstimatorOutcome?
    /// Forgets a source (lost, or it asked not to be used) and returns the new outcome.
    mutating func removeSource(_ source: String) -> EstimatorOutcome
    /// The samples the estimator currently keeps (what persistence saves).
    var samples: [OffsetSample] { get }
    /// The sources the estimator currently follows.
    var sources: [String] { get }
    /// A short name for logs and stored calibrations (by default the type's name).
    var name: String { get }
    /// Replays samples an earlier run saved, all at once, into an empty estimator.
    /// - Complexity: The default adds them one by one; `IntersectionEstimator` fits each source
    ///   once, linear in the number of samples.
    mutating func restore(_ samples: [OffsetSample]) -> EstimatorOutcome
    /// The samples held as suspects: each contradicts its source's other samples and waits for a
    /// second one to confirm a step (by default none: an estimator that holds nothing).
    var suspectSamples: [OffsetSample] { get }
}

extension OffsetEstimator {
    package var name: String { String(describing: Self.self) }

    package mutating func restore(_ samples: [OffsetSample]) -> EstimatorOutcome {
        var outcome = EstimatorOutcome.noSamples
        for sample in samples.sorted(by: { $0.time < $1.time }) { outcome = add(sample) }
        return outcome
    }

    package mutating func add(contentsOf samples: [OffsetSample], history: [OffsetSample]) -> EstimatorOutcome? {
        var outcome: EstimatorOutcome?
        for sample in samples { outcome = add(sample) }
        return outcome
    }

    /// Adds one measurement's samples, with no history.
    package mutating func add(contentsOf samples: [OffsetSample]) -> EstimatorOutcome? {
        add(contentsOf: samples, history: [])
    }

    package var suspectSamples: [OffsetSample] { [] }
}
