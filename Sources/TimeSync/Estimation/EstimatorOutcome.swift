/// What an estimator says after a change.
package enum EstimatorOutcome: Sendable, Hashable {
    /// Enough sources agree: here is the calibration.
    case calibrated(Calibration)
    /// Sources disagree and no majority agrees on a common interval: there is no trustworthy time.
    case noMajority(sources: Int, largestAgreeing: Int)
    /// The majority's calibration, but a source it rests on has just contradicted its own earlier
    /// samples (its clock stepped or changed rate, or a reply lied): until a second sample confirms
    /// the change or refutes it, nothing vouches for this calibration. A clock keeps it, as
    /// ``SynchronizationStatus/provisional``.
    case contradicted(Calibration)
    /// No samples (yet, or any more).
    case noSamples
}
