import Testing
import TimeSync
import TimeSyncFixtures
import TimeSyncTesting

/// A clock with several servers says `synchronized` only when enough of them agree: the first reply,
/// which one liar could send, is `provisional`.
@Suite struct ProvisionalStatusTests {
    let s = Fixture.second

    func clock(minimumAgreeing: Int) -> (ServerClock, ManualTimeBase) {
        let base = ManualTimeBase()
        return (ServerClock(timeBase: base, configuration: .init(minimumAgreeingSources: minimumAgreeing)), base)
    }

    @Test func theFirstSourcesAreProvisionalUntilEnoughAgree() async throws {
        let (clock, base) = clock(minimumAgreeing: 3)
        let events = clock.events()
        var statuses: [SynchronizationStatus] = []
        for name in ["a", "b", "c"] {
            clock.calibrate(with: try Fixture.exchange(name, offset: 5 * s, at: base.monotonicNow()))
            statuses.append(clock.reading().status)
            base.advance(by: .milliseconds(100))
        }
        #expect(statuses == [.provisional, .provisional, .synchronized])
        var changes: [String] = []
        for await event in events {
            if case .statusChanged(let from, let to) = event { changes.append("\(from)→\(to)") }
            if changes.count == 2 { break }
        }
        #expect(changes == ["unsynchronized→provisional", "provisional→synchronized"])
    }

    @Test func aProvisionalReadingIsUsableButNeverCertain() throws {
        let (clock, base) = clock(minimumAgreeing: 2)
        clock.calibrate(with: try Fixture.exchange("a", offset: 5 * s, at: base.monotonicNow()))
        let reading = clock.reading()
        #expect(reading.status == .provisional && !reading.isSynchronized && !clock.isSynchronized)
        #expect(clock.now == reading.serverTime, "provisional time is the calibrated estimate, not the device clock")
        #expect(reading.earliest <= reading.serverTime && reading.serverTime <= reading.latest)
        let started = reading.serverTime.advanced(by: .seconds(-3600))
        #expect(reading.position(in: started..<reading.serverTime.advanced(by: .seconds(3600))) == .uncertain)
    }

    @Test func aLyingFirstServerIsNeverReportedSynchronized() throws {
        let (clock, base) = clock(minimumAgreeing: 3)
        var seen: [SynchronizationStatus] = []
        // The liar answers first, 40 s off; then three honest servers.
        clock.calibrate(with: try Fixture.exchange("liar", offset: 45 * s, at: base.monotonicNow()))
        seen.append(clock.reading().status)
        for name in ["a", "b", "c"] {
            base.advance(by: .milliseconds(5))
            clock.calibrate(with: try Fixture.exchange(name, offset: 5 * s, at: base.monotonicNow()))
            seen.append(clock.reading().status)
        }
        let truth = base.monotonicNow().nanoseconds + 5 * s
        let reading = clock.reading()
        #expect(!seen.prefix(3).contains(.synchronized), "\(seen)")
        #expect(seen.last == .synchronized)
        #expect(reading.earliest.nanoseconds <= truth && truth <= reading.latest.nanoseconds)
        #expect(clock.calibration?.sources.sorted() == ["a", "b", "c"])
    }

    @Test func aRestoredCalibrationKeepsItsStatus() throws {
        let store = MemoryStore()
        let base = ManualTimeBase()
        let first = ServerClock(timeBase: base, configuration: .init(minimumAgreeingSources: 2), store: store, keyProvider: FixedCalibrationKey(seed: 2))
        first.calibrate(with: try Fixture.exchange("a", offset: 5 * s, at: base.monotonicNow()))
        #expect(first.reading().status == .provisional)
        try first.flush()
        base.advance(by: .seconds(1))  // past the reply's arrival
        let second = ServerClock(timeBase: base, configuration: .init(minimumAgreeingSources: 2), store: store, keyProvider: FixedCalibrationKey(seed: 2))
        #expect(second.reading().status == .provisional)
        let lenient = ServerClock(timeBase: base, configuration: .init(minimumAgreeingSources: 1), store: store, keyProvider: FixedCalibrationKey(seed: 2))
        #expect(lenient.reading().status == .synchronized)
    }
}
