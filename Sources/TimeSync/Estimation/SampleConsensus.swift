/// What a short measurement of one server says: the answer of the largest subset of its samples that
/// agree with each other, when that subset is a strict majority.
///
/// A one-shot query ("measure this server now": `timesync query`, an NTP query, an HTTP measurement)
/// takes a handful of samples. Intersecting them all would let one lying reply decide the answer, or
/// empty the intersection. Instead each sample's bounds are carried to the newest sample's instant with
/// the local clock's worst-case drift, Marzullo's algorithm finds the largest set that share an offset,
/// and that set alone is combined by the default `IntersectionEstimator`. With no strict majority
/// (two against two, or every sample on its own) there is no answer: `SampleConsensusError`.
package struct SampleConsensus: Sendable, Hashable {
    /// The combined bounds and estimate of the agreeing samples.
    package var calibration: Calibration
    /// The samples that agree, oldest first.
    package var samples: [OffsetSample]
    /// The samples that contradict the majority, oldest first.
    package var outliers: [OffsetSample]

    /// Combines the samples of one measurement.
    /// - Parameters:
    ///   - samples: The samples, in any order; every one counts in the majority.
    ///   - configuration: The drift bound the samples are carried with.
    /// - Returns: The majority's answer.
    /// - Throws: `SampleConsensusError` without samples, or when no strict majority agrees.
    /// - Complexity: O(n log n) for the selection, then the estimator's O(n²) fit.
    package init(_ samples: [OffsetSample], configuration: EstimatorConfiguration = .init()) throws(SampleConsensusError) {
        let ordered = samples.sorted { $0.time < $1.time }
        guard let newest = ordered.last else { throw SampleConsensusError(largestAgreeing: 0, total: 0) }
        let prior = configuration.ratePrior
        let carried = ordered.map { $0.offset(at: newest.time, rate: prior) }
        let largest = Marzullo.select(carried)
        guard let selection = largest, selection.count * 2 > ordered.count else {
            throw SampleConsensusError(largestAgreeing: largest?.count ?? 0, total: ordered.count)
        }
        let members = Set(selection.members)
        let agreeing = ordered.indices.filter { members.contains($0) }.map { ordered[$0] }
        var estimator = IntersectionEstimator(configuration)
        var outcome = EstimatorOutcome.noSamples
        for sample in agreeing { outcome = estimator.add(sample) }
        let calibration: Calibration
        switch outcome {
        // A held sample is one of the majority's: the majority's answer stands.
        case .calibrated(let calibrated), .contradicted(let calibrated): calibration = calibrated
        case .noMajority, .noSamples: throw SampleConsensusError(largestAgreeing: 0, total: ordered.count)
        }
        self.calibration = calibration
        self.samples = agreeing
        self.outliers = ordered.indices.filter { !members.contains($0) }.map { ordered[$0] }
    }

    /// The measurement as one sample: the combined bounds at the newest agreeing sample's instant,
    /// with the lowest delay. Feed this to a clock (not the raw samples): every estimator then sees
    /// the same honest interval, however it weighs samples.
    /// - Parameter source: The source name the sample carries.
    /// - Throws: `SampleError` for a source name the samples could not have had.
    package func refinedSample(source: String) throws(SampleError) -> OffsetSample {
        let newest = samples[samples.count - 1]
        let delay = samples.map(\.delay).min() ?? 0
        return try OffsetSample(
            source: source, offset: calibration.offset(at: newest.time).bounds, time: newest.time, span: delay, delay: delay)
    }
}
