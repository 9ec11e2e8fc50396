import TimeSync

extension Calibration {
    /// A calibration from one sample alone: its bounds, the maximum-drift prior, no rate correction.
    init(single sample: OffsetSample, _ configuration: EstimatorConfiguration) {
        let prior = configuration.ratePrior
        let bounds = sample.offset(at: sample.time, rate: prior)
        self.init(time: sample.time, offset: bounds, estimate: sample.offset.midpoint, rate: prior, sources: [sample.source])
    }
}
