import Foundation
import Testing
import TimeSync
import TimeSyncFixtures
import TimeSyncTesting

/// A floor a wrong source raised is lowered by the next synchronization that contradicts it, and
/// the store keeps the corrected floor: one wrong synchronization does not outlive the next right one.
@Suite struct FloorCorrectionTests {
    let key = FixedCalibrationKey(seed: 11)
    let synchronous = ServerClock.Configuration(persistence: PersistencePolicy(writesInBackground: false))
    let day: Double = 86_400

    /// A clock on `store` synchronized to a server `ahead` seconds ahead of the wall clock, flushed.
    func synchronize(_ clock: ServerClock, _ base: ManualTimeBase, ahead: Double, measurements: Int = 4) throws {
        for _ in 0..<measurements {
            clock.calibrate(with: try Fixture.exchange(offset: Fixture.offset(serverAheadOfWall: ahead, base: base), at: base.monotonicNow()))
            base.advance(by: .seconds(16))
        }
        #expect(clock.isSynchronized)
        try clock.flush()
    }

    @Test func aFloorALiarRaisedIsLoweredByTheNextSynchronization() throws {
        let base = ManualTimeBase()
        let store = MemoryCalibrationStore()
        // Boot 1: the only source is a day ahead (misconfigured, or spoofed plain NTP).
        try synchronize(ServerClock(timeBase: base, configuration: synchronous, store: store, keyProvider: key), base, ahead: day)
        // Boot 2: the floor says a day ahead…
        base.reboot(bootSessionID: "manual-boot-2")
        let clock = ServerClock(timeBase: base, configuration: synchronous, store: store, keyProvider: key)
        let liar = clock.reading()
        #expect(liar.status == .floorOnly)
        #expect(base.wallNow().duration(to: liar.earliest) > .seconds(86_000))
        // …until an honest server answers: its synchronized reading lies wholly below the floor.
        let events = clock.take([try Fixture.exchange(offset: Fixture.offset(serverAheadOfWall: 0, base: base), at: base.monotonicNow())])
        #expect(clock.reading().status == .synchronized)
        let lowered = events.compactMap { event -> (Duration, String)? in
            if case .floorLowered(let by, let reason) = event { return (by, reason) }
            return nil
        }
        #expect(lowered.count == 1, "\(events)")
        if let (by, reason) = lowered.first {
            #expect(by > .seconds(86_399) && by < .seconds(86_401), "\(by)")
            #expect(reason.contains("server") && reason.contains("below the floor"), "\(reason)")
        }
        let honest = clock.reading().earliest
        #expect(clock.hasCertainlyPassed(honest) && !clock.hasCertainlyPassed(honest.advanced(by: .seconds(3600))))
        try clock.flush()
        // Boot 3, offline: the floor is the honest one, and a deadline an hour away has not passed.
        base.reboot(bootSessionID: "manual-boot-3")
        let after = ServerClock(timeBase: base, configuration: synchronous, store: store, keyProvider: key)
        let reading = after.reading()
        #expect(reading.status == .floorOnly)
        #expect(reading.earliest >= honest && reading.earliest < honest.advanced(by: .seconds(1)), "\(reading.earliest) vs \(honest)")
        #expect(!after.hasCertainlyPassed(base.wallNow().advanced(by: .seconds(3600))))
    }

    /// A synchronized reading that agrees with the floor (its `latest` at or above it) leaves it.
    @Test func aReadingThatHoldsTheFloorLeavesIt() throws {
        let base = ManualTimeBase()
        let store = MemoryCalibrationStore()
        try synchronize(ServerClock(timeBase: base, configuration: synchronous, store: store, keyProvider: key), base, ahead: 42)
        base.reboot(bootSessionID: "manual-boot-2")
        let clock = ServerClock(timeBase: base, configuration: synchronous, store: store, keyProvider: key)
        let floor = clock.reading().earliest
        let events = clock.take([try Fixture.exchange(offset: Fixture.offset(serverAheadOfWall: 42, base: base), at: base.monotonicNow())])
        #expect(!events.contains { if case .floorLowered = $0 { true } else { false } }, "\(events)")
        #expect(clock.hasCertainlyPassed(floor))
    }

    /// Only a synchronized reading lowers a floor: a provisional one (fewer sources agree than the
    /// clock asks for) does not.
    @Test func aProvisionalReadingDoesNotLowerTheFloor() throws {
        let base = ManualTimeBase()
        let store = MemoryCalibrationStore()
        try synchronize(ServerClock(timeBase: base, configuration: synchronous, store: store, keyProvider: key), base, ahead: day)
        base.reboot(bootSessionID: "manual-boot-2")
        var configuration = synchronous
        configuration.minimumAgreeingSources = 2
        let clock = ServerClock(timeBase: base, configuration: configuration, store: store, keyProvider: key)
        let floor = clock.reading().earliest
        let events = clock.take([try Fixture.exchange(offset: Fixture.offset(serverAheadOfWall: 0, base: base), at: base.monotonicNow())])
        #expect(clock.reading().status == .provisional)
        #expect(!events.contains { if case .floorLowered = $0 { true } else { false } }, "\(events)")
        try clock.flush()
        base.reboot(bootSessionID: "manual-boot-3")
        let after = ServerClock(timeBase: base, configuration: configuration, store: store, keyProvider: key)
        #expect(after.reading().status == .floorOnly)
        #expect(after.reading().earliest >= floor, "the floor is kept")
    }
}
