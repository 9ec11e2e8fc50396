import Foundation
import Testing
import TimeSync
import TimeSyncFixtures
import TimeSyncTesting

@Suite struct IntersectionEstimatorTests {
    let ms = Fixture.millisecond
    let s = Fixture.second

    func calibration(_ outcome: EstimatorOutcome) throws -> Calibration {
        try Fixture.calibration(outcome)
    }

    @Test func intersectionIsTighterThanAnySample() throws {
        var estimator = IntersectionEstimator()
        var outcome = EstimatorOutcome.noSamples
        // Delays split unevenly, differently each time: each interval is 40 ms wide but their common
        // part is much narrower (samples 100 ms apart: the slew allowance adds at most 0.2 ms).
        for (index, forward) in [Int64(5), 35, 12, 28, 20].enumerated() {
            outcome = estimator.add(try Fixture.exchange(offset: 7 * s, at: Fixture.at(Double(index) / 10), forward: forward * ms, backward: (40 - forward) * ms))
        }
        let result = try calibration(outcome)
        #expect(result.offset.contains(7 * s))
        #expect(result.offset.width < 12 * ms)
        #expect(abs(result.estimate - 7 * s) < 2 * ms)
    }

    /// A source's measurement of three samples goes straight in: one lying reply among them, first,
    /// second or third, never moves the clock (held as a suspect, or outvoted by the two after it).
    @Test(arguments: [0, 1, 2]) func oneLyingReplyAmongThreeNeverWins(_ liar: Int) throws {
        var estimator = IntersectionEstimator()
        var outcome = EstimatorOutcome.noSamples
        for index in 0..<3 {
            let offset = index == liar ? 9 * s : 7 * s
            outcome = estimator.add(try Fixture.exchange(offset: offset, at: Fixture.at(Double(index) / 10)))
        }
        let result: Calibration
        switch outcome {
        case .calibrated(let calibration), .contradicted(let calibration): result = calibration
        default: throw CancellationError()
        }
        #expect(result.offset.contains(7 * s))
        #expect(!result.offset.contains(9 * s))
    }

    @Test func delaySpikesDoNotPullTheEstimate() throws {
        var estimator = IntersectionEstimator()
        _ = estimator.add(try Fixture.exchange(offset: 0, at: Fixture.at(0), forward: 10 * ms, backward: 10 * ms))
        // A 900 ms spike in one direction: the latest strategy would be 450 ms off.
        let result = try calibration(estimator.add(try Fixture.exchange(offset: 0, at: Fixture.at(16), forward: 910 * ms, backward: 10 * ms)))
        #expect(abs(result.estimate) < ms)
    }

    @Test func fiveSourcesTwoLiarsAreRejected() throws {
        var estimator = IntersectionEstimator()
        var outcome = EstimatorOutcome.noSamples
        let offsets: [String: Int64] = ["a": 0, "b": 3 * s, "c": 0, "d": -2 * s, "e": 0]
        for round in 0..<4 {
            for (name, offset) in offsets.sorted(by: { $0.key < $1.key }) {
                outcome = estimator.add(try Fixture.exchange(name, offset: offset, at: Fixture.at(Double(round * 16) + 0.1)))
            }
        }
        let result = try calibration(outcome)
        #expect(result.sources == ["a", "c", "e"])
        #expect(result.offset.contains(0))
        #expect(abs(result.estimate) < ms)
    }

    @Test(arguments: [
        ["a": Int64(0), "b": 5 * Fixture.second],
        ["a": 0, "b": 0, "c": 4 * Fixture.second, "d": 4 * Fixture.second],
        ["a": 0, "b": Fixture.second, "c": 2 * Fixture.second],
    ])
    func noMajorityMeansNoTime(offsets: [String: Int64]) throws {
        var estimator = IntersectionEstimator()
        var outcome = EstimatorOutcome.noSamples
        for (name, offset) in offsets.sorted(by: { $0.key < $1.key }) {
            outcome = estimator.add(try Fixture.exchange(name, offset: offset, at: Fixture.at(1)))
        }
        guard case .noMajority(let sources, let agreeing) = outcome else {
            Issue.record("expected no majority, got \(outcome)")
            return
        }
        #expect(sources == offsets.count)
        #expect(agreeing * 2 <= sources)
    }

    @Test func boundsWidenAtTheMaximumDriftWithOneSample() throws {
        var estimator = IntersectionEstimator(EstimatorConfiguration(maxDrift: 100e-6))
        let result = try calibration(estimator.add(try Fixture.exchange(offset: 0, at: Fixture.at(0))))
        let now = result.offset(at: result.time)
        let later = result.offset(at: Fixture.at(3600.02))
        // One hour at 100 ppm: 360 ms more on each side, plus the whole slew allowance (an hour at
        // 500 ppm is past its 128 ms limit).
        #expect(later.bounds.lower == now.bounds.lower - 360 * ms - 128 * ms)
        #expect(later.bounds.upper == now.bounds.upper + 360 * ms + 128 * ms)
        var steady = IntersectionEstimator(EstimatorConfiguration(maxDrift: 100e-6, serverSlew: 0))
        let steadyResult = try calibration(steady.add(try Fixture.exchange(offset: 0, at: Fixture.at(0))))
        #expect(steadyResult.offset(at: Fixture.at(3600.02)).bounds.upper == now.bounds.upper + 360 * ms)
    }

    @Test func theSlewAllowanceGrowsAtItsRateUpToItsLimit() throws {
        let configuration = EstimatorConfiguration(maxDrift: 100e-6, serverSlew: 500e-6, serverSlewLimit: .milliseconds(128))
        var estimator = IntersectionEstimator(configuration)
        let result = try calibration(estimator.add(try Fixture.exchange(offset: 0, at: Fixture.at(0))))
        #expect(result.slew == SlewAllowance(rate: 500e-6, limit: 128 * ms))
        let now = result.offset(at: result.time).bounds
        // 10 s: 1 ms of drift and 5 ms of slew on each side.
        #expect(result.offset(at: result.time.advanced(by: .seconds(10))).bounds.upper == now.upper + 6 * ms)
        // 1000 s: 100 ms of drift; the slew stops at its limit.
        #expect(result.offset(at: result.time.advanced(by: .seconds(1000))).bounds.upper == now.upper + 228 * ms)
        // The estimate does not move with the allowance.
        #expect(result.offset(at: result.time.advanced(by: .seconds(10))).estimate == result.estimate)
    }

    @Test func slewAllowancesAreCheckedAtTheDoor() throws {
        #expect(SlewAllowance(rate: .nan, limit: -5) == .none)
        #expect(SlewAllowance(rate: -1, limit: .max) == SlewAllowance(rate: EstimatorConfiguration.driftLimit, limit: SlewAllowance.maximumLimit))
        #expect(SlewAllowance(rate: 1e-3, limit: 10).widening(over: .min) == 10)
        let decoded = try JSONDecoder().decode(SlewAllowance.self, from: Data(#"{"rate":5,"limit":-1}"#.utf8))
        #expect(decoded == SlewAllowance(rate: EstimatorConfiguration.driftLimit, limit: 0))
    }

    @Test func driftIsMeasuredAndCorrectedWithHonestResidualBounds() throws {
        // The local clock runs 50 ppm fast: θ = server − local falls by 50 µs per second.
        let drift = -50e-6
        var estimator = IntersectionEstimator()
        var generator = SeededGenerator(seed: 42)
        var outcome = EstimatorOutcome.noSamples
        for i in 0..<120 {
            let t = Double(i) * 16
            let forward = Int64(8 * Double(ms) + generator.nextExponential(mean: 3 * Double(ms)))
            let backward = Int64(8 * Double(ms) + generator.nextExponential(mean: 3 * Double(ms)))
            outcome = estimator.add(try Fixture.exchange(offset: Int64(drift * t * 1e9), at: Fixture.at(t), forward: forward, backward: backward))
        }
        let result = try calibration(outcome)
        #expect(abs(result.rate.estimate - drift) < 2e-6)
        #expect(result.rate.contains(drift))
        #expect(result.rate.width > 0)
        // Six hours later, without samples.
        let t = 1904.0 + 6 * 3600
        let truth = Int64(drift * t * 1e9)
        let (estimate, bounds) = result.offset(at: Fixture.at(t))
        #expect(bounds.contains(truth))
        #expect(abs(estimate - truth) < 50 * ms)
        // Without rate correction the error would be 1.08 s; with it the bounds are far tighter than
        // the ±2.16 s the 100 ppm prior gives.
        #expect(bounds.width < 1 * s)
    }

    @Test func aConfirmedServerStepDropsTheContradictedSamples() throws {
        var estimator = IntersectionEstimator()
        for i in 0..<8 { _ = estimator.add(try Fixture.exchange(offset: 0, at: Fixture.at(Double(i) * 16))) }
        // The server's clock is stepped by +2 s: the first sample after the step is held as a suspect…
        guard case .contradicted(let held) = estimator.add(try Fixture.exchange(offset: 2 * s, at: Fixture.at(8 * 16))) else {
            Issue.record("the first sample after the step was not held")
            return
        }
        #expect(held.offset.contains(0) && !held.offset.contains(2 * s))
        #expect(estimator.samples.count == 8 && estimator.suspectSamples.count == 1)
        // …and the second confirms it: the window becomes the two samples after the step.
        let result = try calibration(estimator.add(try Fixture.exchange(offset: 2 * s, at: Fixture.at(9 * 16))))
        #expect(result.offset.contains(2 * s))
        #expect(estimator.samples.count == 2 && estimator.suspectSamples.isEmpty)
    }

    @Test func sourcesThatFallSilentAreDropped() throws {
        var estimator = IntersectionEstimator(EstimatorConfiguration(sourceTimeout: .seconds(600)))
        _ = estimator.add(try Fixture.exchange("quiet", offset: 0, at: Fixture.at(0)))
        _ = estimator.add(try Fixture.exchange("busy", offset: 0, at: Fixture.at(1)))
        #expect(estimator.sources == ["busy", "quiet"])
        _ = estimator.add(try Fixture.exchange("busy", offset: 0, at: Fixture.at(700)))
        #expect(estimator.sources == ["busy"])
    }

}

extension RateInterval {
    func contains(_ rate: Double) -> Bool { lower <= rate && rate <= upper }
}

@Suite struct OffsetModelTests {
    /// The fast estimate of `ServerClock.now` equals the clamped estimate of `reading()` from the anchor
    /// on, for any valid model.
    @Test func fastEstimateNeedsNoClamping() throws {
        var generator = SeededGenerator(seed: 99)
        for _ in 0..<2_000 {
            let lower = Int64(generator.nextUnit() * 2e9) - 1_000_000_000
            let width = Int64(generator.nextUnit() * 1e8)
            let offset = try OffsetInterval(lower: lower, upper: lower + width)
            let estimate = lower + Int64(generator.nextUnit() * Double(width))
            let rateLower = (generator.nextUnit() - 0.5) * 2e-4
            let rate = RateInterval(lower: rateLower, upper: rateLower + generator.nextUnit() * 1e-4, estimate: rateLower + generator.nextUnit() * 1e-4)
            let model = OffsetModel(time: Fixture.at(0), offset: offset, estimate: estimate, rate: rate)
            let later = Fixture.at(generator.nextUnit() * 1e6)
            let (clamped, bounds) = model.offset(at: later)
            #expect(model.estimate(at: later) == clamped)
            #expect(bounds.contains(clamped))
        }
    }
}
