import Testing
import TimeSync
import TimeSyncFixtures

/// The samples of one measurement count as one vote: a step is confirmed only by a later, separate
/// measurement, whatever the source kind (an HTTP series, an NTP burst, a Roughtime query).
@Suite struct MeasurementVoteTests {
    let s = Fixture.second

    /// A source's steady window, then a measurement of `count` samples `offset` away at `t`.
    func measurement(offset: Int64, at t: Double, count: Int = 4) throws -> [OffsetSample] {
        try (0..<count).map { try Fixture.exchange(offset: offset, at: Fixture.at(t + Double($0) * 0.1)) }
    }

    func steady() throws -> IntersectionEstimator {
        var estimator = IntersectionEstimator()
        for i in 0..<4 { _ = estimator.add(contentsOf: try measurement(offset: 0, at: Double(i) * 16)) }
        return estimator
    }

    @Test func oneMeasurementCannotConfirmAStep() throws {
        var estimator = try steady()
        // A server wrong by +30 s for one measurement of four agreeing samples: held, not taken.
        guard case .contradicted(let held) = estimator.add(contentsOf: try measurement(offset: 30 * s, at: 64)) else {
            Issue.record("a measurement that contradicts the window was taken at once")
            return
        }
        #expect(held.offset.contains(0) && !held.offset.contains(30 * s))
        #expect(estimator.suspectSamples.count == 4)
    }

    @Test func aLaterMeasurementConfirmsTheStep() throws {
        var estimator = try steady()
        _ = estimator.add(contentsOf: try measurement(offset: 30 * s, at: 64))
        guard case .calibrated(let stepped) = estimator.add(contentsOf: try measurement(offset: 30 * s, at: 80)) else {
            Issue.record("a second measurement agreeing with the step did not confirm it")
            return
        }
        #expect(stepped.offset.contains(30 * s))
        #expect(estimator.suspectSamples.isEmpty)
    }

    @Test func aLaterMeasurementThatAgreesWithTheWindowRefutesTheStep() throws {
        var estimator = try steady()
        _ = estimator.add(contentsOf: try measurement(offset: 30 * s, at: 64))
        guard case .calibrated(let kept) = estimator.add(contentsOf: try measurement(offset: 0, at: 80)) else {
            Issue.record("the window's own source was not taken back")
            return
        }
        #expect(kept.offset.contains(0))
        #expect(estimator.suspectSamples.isEmpty)
    }

    /// A frozen `Date` (one stored response replayed): each measurement contradicts the one before
    /// it, so no two measurements ever agree and the step is never confirmed.
    @Test func aFrozenTimeIsNeverConfirmed() throws {
        var estimator = try steady()
        // The response replayed from 64 s on: right then, and never moving again.
        let frozen = Fixture.at(64).nanoseconds
        for round in 0..<6 {
            let t = 64 + Double(round) * 3
            let samples = try (0..<3).map { i -> OffsetSample in
                let t1 = Fixture.at(t + Double(i) * 0.05)
                return try OffsetSample.timestamp(
                    source: "server", serverTime: UnixTime(nanoseconds: frozen), resolution: .seconds(1),
                    requestSent: t1, responseReceived: t1.advanced(by: .milliseconds(20)))
            }
            let outcome = estimator.add(contentsOf: samples)
            if case .calibrated(let wrong) = outcome, !wrong.offset.contains(0) {
                Issue.record("round \(round): the frozen time was taken: \(wrong.offset)")
            }
        }
    }

    /// One sample added alone is a measurement of its own: two in a row confirm a step, as before.
    @Test func singleSamplesAreMeasurementsOfTheirOwn() throws {
        var estimator = try steady()
        _ = estimator.add(try Fixture.exchange(offset: 2 * s, at: Fixture.at(64)))
        let result = try Fixture.calibration(estimator.add(try Fixture.exchange(offset: 2 * s, at: Fixture.at(80))))
        #expect(result.offset.contains(2 * s))
    }
}
