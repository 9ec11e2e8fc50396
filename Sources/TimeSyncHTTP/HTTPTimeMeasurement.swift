import TimeSync

/// The result of an active HTTP measurement of one server: its samples and what they bound.
package struct HTTPTimeMeasurement: Sendable, Hashable {
    /// The server's source name (`host[:port]`).
    package var source: String
    /// Which header the samples came from.
    package var scheme: HTTPTimeScheme.Kind
    /// The samples that agree with the majority, oldest first.
    package var samples: [OffsetSample]
    /// The measurement as one sample: the agreeing samples' combined bounds at the newest one's
    /// instant. `ServerClock.calibrate(with:)` feeds this one, so that every estimation strategy
    /// sees the same refined interval (a `Date` measurement refined to milliseconds stays that
    /// narrow, instead of one-second samples an average would blur).
    package var refinedSample: OffsetSample
    /// Samples that contradict the majority (a replayed or lying response), oldest first.
    package var outliers: [OffsetSample]
    /// What the agreeing samples bound, combined by the default strategy's `IntersectionEstimator`.
    package var calibration: Calibration
    /// Every request sent, including the discarded connection-opening one and rejected ones.
    package var requests: Int
    /// Responses rejected (cached, replayed, malformed).
    package var rejected: Int

    /// Combines samples into a measurement: the answer of the largest subset that agree, when it is a
    /// strict majority (`SampleConsensus`), so one lying or replayed response cannot decide it.
    /// - Parameters:
    ///   - source: The server's source name.
    ///   - scheme: Which header the samples came from.
    ///   - samples: The accepted samples.
    ///   - requests: Requests sent in all.
    ///   - rejected: Responses rejected.
    ///   - configuration: The estimator settings (drift bound).
    /// - Throws: `HTTPTimeError.noUsableSamples` without samples, `HTTPTimeError.inconsistentSamples`
    ///   (saying how many agree) when no strict majority of them shares an offset.
    package init(
        source: String, scheme: HTTPTimeScheme.Kind, samples: [OffsetSample], requests: Int, rejected: Int,
        configuration: EstimatorConfiguration = .init()
    ) throws(HTTPTimeError) {
        guard !samples.isEmpty else { throw HTTPTimeError(.noUsableSamples) }
        let consensus: SampleConsensus
        do {
            consensus = try SampleConsensus(samples, configuration: configuration)
        } catch {
            throw HTTPTimeError(.inconsistentSamples, detail: error.description)
        }
        self.source = source
        self.scheme = scheme
        self.samples = consensus.samples
        self.outliers = consensus.outliers
        self.calibration = consensus.calibration
        do {
            self.refinedSample = try consensus.refinedSample(source: source)
        } catch {
            throw HTTPTimeError(.noUsableSamples, detail: error.description)
        }
        self.requests = requests
        self.rejected = rejected
    }

    /// The lowest network delay among the samples, in nanoseconds.
    package var delay: Int64 { samples.map(\.delay).min() ?? 0 }

    /// The user-facing offset: server time − the device's wall clock, converted with a wall clock
    /// read between two monotonic readings (`TimeBase.wallClockPair()`), whose gap widens the bounds.
    /// - Parameter pair: The clocks read together; take it right before use.
    /// - Returns: Server − wall clock: estimate, bounds, and error (half the bounds' width).
    package func wallOffset(_ pair: WallClockPair) -> WallClockOffset {
        WallClockOffset(calibration, pair: pair)
    }
}
