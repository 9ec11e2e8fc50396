import Testing
import TimeSync
import TimeSyncTesting

/// A majority vote rejects liars without widening the answer among honest samples: when every sample
/// agrees, a one-shot query's answer is exactly what the estimator makes of all of them (the tightest
/// intersection), and with one liar it is exactly what the estimator makes of the others.
@Suite struct SampleConsensusPrecisionTests {
    static let truth: Int64 = 5_000_000_000

    /// Eight exchanges 250 ms apart on a path of 20 ms each way, exponential jitter of mean 10 ms and
    /// 10 % spikes of mean 200 ms (per direction), as `timesync query --samples 8` sees it.
    static func impairedExchanges(seed: UInt64, count: Int = 8) throws -> [OffsetSample] {
        var generator = SeededGenerator(seed: seed)
        func delay() -> Int64 {
            var nanoseconds = 20e6 + generator.nextExponential(mean: 10e6)
            if generator.nextBool(probability: 0.1) { nanoseconds += generator.nextExponential(mean: 200e6) }
            return Int64(nanoseconds)
        }
        var samples: [OffsetSample] = []
        var t1: Int64 = 1_000_000_000_000
        for _ in 0..<count {
            let up = delay()
            let down = delay()
            let t2 = t1 + up + truth
            samples.append(
                try OffsetSample.exchange(
                    source: "server", requestSent: MonotonicInstant(nanoseconds: t1), serverReceive: UnixTime(nanoseconds: t2),
                    serverTransmit: UnixTime(nanoseconds: t2), responseReceived: MonotonicInstant(nanoseconds: t1 + up + down)))
            t1 += up + down + 250_000_000
        }
        return samples
    }

    /// What the estimator alone makes of samples, at the newest one's instant.
    static func estimatorAlone(_ samples: [OffsetSample]) throws -> Calibration {
        var estimator = IntersectionEstimator()
        var outcome = EstimatorOutcome.noSamples
        for sample in samples { outcome = estimator.add(sample) }
        guard case .calibrated(let calibration) = outcome else { throw SampleConsensusError(largestAgreeing: 0, total: samples.count) }
        return calibration
    }

    @Test func honestSamplesGiveExactlyTheEstimatorsAnswer() throws {
        var errors: [Int64] = []
        for seed in UInt64(1)...200 {
            let samples = try Self.impairedExchanges(seed: seed)
            let consensus = try SampleConsensus(samples)
            let alone = try Self.estimatorAlone(samples)
            #expect(consensus.samples.count == samples.count, "seed \(seed): an honest sample was voted out")
            #expect(consensus.calibration == alone, "seed \(seed)")
            // The answer lies inside the plain intersection of every exchange's bounds, give or take
            // the drift allowance over the measurement (100 ppm of its span).
            let span = samples.last!.time.nanoseconds - samples.first!.time.nanoseconds
            let slack = span / 10_000
            let lower = samples.map(\.offset.lower).max()! - slack
            let upper = samples.map(\.offset.upper).min()! + slack
            #expect((lower...upper).contains(consensus.calibration.estimate), "seed \(seed)")
            errors.append(abs(consensus.calibration.estimate - Self.truth))
        }
        // On this path the tightest intersection's middle is within 2 ms of the truth for 9 in 10
        // seeds: far inside any single exchange's ±20 ms or more.
        errors.sort()
        #expect(errors[errors.count * 9 / 10] < 2_000_000, "p90 |error| \(errors[errors.count * 9 / 10]) ns")
    }

    @Test func oneLiarOfFourIsOutvotedAndTheRestKeepTheirPrecision() throws {
        for seed in UInt64(1)...100 {
            var samples = try Self.impairedExchanges(seed: seed, count: 4)
            let honest = Array(samples[0..<3])
            samples[3].offset = samples[3].offset.shifted(by: 1_000 * 1_000_000_000)
            let consensus = try SampleConsensus(samples)
            #expect(consensus.outliers == [samples[3]], "seed \(seed)")
            #expect(consensus.calibration == (try Self.estimatorAlone(honest)), "seed \(seed)")
        }
    }
}
