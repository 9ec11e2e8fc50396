import Testing
import TimeSync
import TimeSyncFixtures
import TimeSyncSimulation
import TimeSyncTesting

/// The strategies other libraries use, each doing what it says (they are compared, not trusted).
@Suite struct ComparisonStrategyTests {
    let ms = Fixture.millisecond
    let s = Fixture.second

    func calibration(_ outcome: EstimatorOutcome) throws -> Calibration {
        try Fixture.calibration(outcome)
    }

    @Test func latestTakesTheNewestSample() throws {
        var estimator = LatestEstimator()
        _ = estimator.add(try Fixture.exchange(offset: 100 * ms, at: Fixture.at(0)))
        let result = try calibration(estimator.add(try Fixture.exchange(offset: 200 * ms, at: Fixture.at(10), forward: 5 * ms, backward: 45 * ms)))
        // The newest sample's midpoint, asymmetry and all: (5 − 45) / 2 = −20 ms off.
        #expect(result.estimate == 180 * ms)
        // An older sample arriving late does not win.
        let late = try calibration(estimator.add(try Fixture.exchange(offset: 300 * ms, at: Fixture.at(5))))
        #expect(late.estimate == 180 * ms)
    }

    @Test func lowestDelayOnlyRecalibratesOnAFasterResponse() throws {
        var estimator = LowestDelayEstimator()
        _ = estimator.add(try Fixture.exchange(offset: 100 * ms, at: Fixture.at(0), forward: 10 * ms, backward: 10 * ms))
        let slower = try calibration(estimator.add(try Fixture.exchange(offset: 500 * ms, at: Fixture.at(10), forward: 30 * ms, backward: 30 * ms)))
        #expect(slower.estimate == 100 * ms)
        let faster = try calibration(estimator.add(try Fixture.exchange(offset: 200 * ms, at: Fixture.at(20), forward: 2 * ms, backward: 2 * ms)))
        #expect(faster.estimate == 200 * ms)
    }

    @Test func emaAveragesMidpoints() throws {
        var estimator = EMAEstimator(alpha: 0.5)
        _ = estimator.add(try Fixture.exchange(offset: 0, at: Fixture.at(0)))
        _ = estimator.add(try Fixture.exchange(offset: 100 * ms, at: Fixture.at(10)))
        let result = try calibration(estimator.add(try Fixture.exchange(offset: 100 * ms, at: Fixture.at(20))))
        // 0 → 50 → 75 ms.
        #expect(result.estimate == 75 * ms)
    }

    @Test func kronosTakesTheMedianOfEachServersFastestSample() throws {
        var estimator = KronosEstimator()
        var outcome = EstimatorOutcome.noSamples
        for (name, offset) in [("a", Int64(0)), ("b", 40 * ms), ("c", 10 * s)] {
            // Each server: a slow sample pulled off by 100 ms, then a fast one.
            _ = estimator.add(try Fixture.exchange(name, offset: offset, at: Fixture.at(0), forward: 210 * ms, backward: 10 * ms))
            outcome = estimator.add(try Fixture.exchange(name, offset: offset, at: Fixture.at(1), forward: 1 * ms, backward: 1 * ms))
        }
        #expect(try calibration(outcome).estimate == 40 * ms)
    }

    @Test func timesyncJSAveragesTheSamplesWithinOneDeviation() throws {
        var estimator = TimesyncJSEstimator()
        var outcome = EstimatorOutcome.noSamples
        for (index, offset) in [Int64(10), 12, 8, 10, 500].enumerated() {
            outcome = estimator.add(try Fixture.exchange(offset: offset * ms, at: Fixture.at(Double(index))))
        }
        // The 500 ms outlier is more than one deviation from the mean: (10 + 12 + 8 + 10) / 4.
        #expect(try calibration(outcome).estimate == 10 * ms)
    }

    @Test func strategyNamesRoundTrip() {
        for strategy in Strategy.all {
            #expect(Strategy(name: strategy.name) == strategy)
        }
        #expect(Strategy(name: "median") == nil)
        #expect(Strategy.all.map(\.name) == ["default", "latest", "lowest-delay", "ema"])
        for strategy in Strategy.comparison { #expect(Strategy(name: strategy.name) == strategy) }
    }

    @Test func eachStrategyDrivesTheClock() throws {
        for strategy in Strategy.all {
            let base = ManualTimeBase()
            let clock = ServerClock(timeBase: base, strategy: strategy)
            for i in 0..<5 {
                clock.calibrate(with: try Fixture.exchange(offset: 2 * s, at: base.monotonicNow()))
                base.advance(by: .seconds(16))
                _ = i
            }
            #expect(clock.isSynchronized, "\(strategy)")
            #expect(abs(clock.now.nanoseconds - (base.monotonicNow().nanoseconds + 2 * s)) < ms, "\(strategy)")
        }
    }
}
