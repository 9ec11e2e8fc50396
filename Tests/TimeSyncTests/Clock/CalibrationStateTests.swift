import Testing
import TimeSync
import TimeSyncFixtures

/// The clock's calibration state machine on its own: changes in, status, events and models out.
@Suite struct CalibrationStateTests {
    let ms = Fixture.millisecond
    let s = Fixture.second

    func state(minimumAgreeing: Int = 1) -> CalibrationState {
        CalibrationState(estimator: IntersectionEstimator(), minimumAgreeingSources: minimumAgreeing, offsetChangeThreshold: .milliseconds(1))
    }

    @Test func theFirstSampleSynchronizesAndSaysSo() throws {
        var state = state()
        let change = state.add([try Fixture.exchange(offset: 5 * s, at: Fixture.at(0))], at: Fixture.at(0.02))
        #expect(state.status == .synchronized)
        #expect(change.published?.status == .synchronized)
        #expect(change.published?.restored == false)
        guard change.events.count == 2, case .calibrated(let reading) = change.events[0] else {
            Issue.record("events: \(change.events)")
            return
        }
        #expect(reading.status == .synchronized && reading.earliest <= reading.serverTime && reading.serverTime <= reading.latest)
        #expect(change.events[1] == .statusChanged(from: .unsynchronized, to: .synchronized))
    }

    @Test func oneSourceOfTwoRequiredIsProvisional() throws {
        var state = state(minimumAgreeing: 2)
        _ = state.add([try Fixture.exchange("a", offset: 0, at: Fixture.at(0))], at: Fixture.at(0.02))
        #expect(state.status == .provisional)
        let change = state.add([try Fixture.exchange("b", offset: 0, at: Fixture.at(1))], at: Fixture.at(1.02))
        #expect(state.status == .synchronized)
        #expect(change.events.contains(.statusChanged(from: .provisional, to: .synchronized)))
    }

    @Test func aMoveBeyondTheThresholdIsAnEvent() throws {
        var state = state()
        _ = state.add([try Fixture.exchange(offset: 0, at: Fixture.at(0), forward: 5 * ms, backward: 5 * ms)], at: Fixture.at(0.01))
        // Another source, 3 ms from the first's estimate but within its bounds: the estimate moves.
        let change = state.add([try Fixture.exchange(offset: 3 * ms, at: Fixture.at(0.5), forward: 1 * ms, backward: 1 * ms)], at: Fixture.at(0.51))
        let moves = change.events.compactMap { if case .offsetChanged(let by) = $0 { by } else { nil } }
        #expect(moves.count == 1)
        #expect(moves.first.map { $0 > .milliseconds(1) } == true)
    }

    @Test func resetReturnsToUnsynchronizedAndSaysSo() throws {
        var state = state()
        _ = state.add([try Fixture.exchange(offset: 0, at: Fixture.at(0))], at: Fixture.at(0.02))
        let change = state.reset()
        #expect(state.status == .unsynchronized && state.calibration == nil && state.estimator.samples.isEmpty)
        #expect(change.published == .unsynchronized)
        #expect(change.events == [.statusChanged(from: .synchronized, to: .unsynchronized)])
        #expect(state.reset().events.isEmpty)
    }

    @Test func restoredSamplesWaitAsHistoryUntilTheirSourceAnswers() throws {
        var state = state()
        let stored = try (0..<4).map { try Fixture.exchange("a", offset: 2 * s, at: Fixture.at(Double($0))) }
        let change = state.restore(stored)
        #expect(state.isRestored && state.status == .synchronized)
        #expect(change.published?.restored == true)
        #expect(state.estimator.samples.isEmpty, "restored samples never count toward a fresh majority")
        #expect(state.history["a"]?.count == 4)
        #expect(state.persistedSamples.count == 4)
        _ = state.add([try Fixture.exchange("a", offset: 2 * s, at: Fixture.at(10))], at: Fixture.at(10.02))
        #expect(!state.isRestored)
        #expect(state.history["a"] == nil)
        #expect(state.estimator.samples.count == 5, "the history agreed with the fresh sample and was taken")
    }

    @Test func removingTheLastSourceKeepsTheCalibrationAging() throws {
        var state = state()
        _ = state.add([try Fixture.exchange("a", offset: 0, at: Fixture.at(0))], at: Fixture.at(0.02))
        let change = state.removeSource("a", at: Fixture.at(1))
        #expect(change.events == [.sourceLost("a")])
        #expect(change.published == nil)
        #expect(state.calibration != nil && state.status == .synchronized)
    }

    @Test func theWallClockMonitorReportsMovesBeyondItsThresholdOnce() {
        let start = UnixTime(seconds: 1_767_225_600)
        var monitor = WallClockMonitor(WallClockPair(monotonic: Fixture.at(0), wall: start), threshold: .seconds(1))
        // A slew-sized drift is not a change.
        #expect(monitor.check(WallClockPair(monotonic: Fixture.at(10), wall: start.advanced(by: .milliseconds(10_500)))) == nil)
        // A user moving the clock an hour ahead is, once.
        #expect(monitor.check(WallClockPair(monotonic: Fixture.at(20), wall: start.advanced(by: .seconds(3620)))) == .seconds(3600))
        #expect(monitor.check(WallClockPair(monotonic: Fixture.at(30), wall: start.advanced(by: .seconds(3630)))) == nil)
        // And back.
        #expect(monitor.check(WallClockPair(monotonic: Fixture.at(40), wall: start.advanced(by: .seconds(40)))) == .seconds(-3600))
    }
}
