import Foundation
import Testing
@testable import TimeSync
import TimeSyncFixtures
import TimeSyncTesting

/// A store is this boot's only if its monotonic epoch is: a time namespace shares the boot ID but
/// moves the monotonic clock, and a store from outside it must not pass as this one's.
@Suite struct MonotonicEpochTests {
    let key = FixedCalibrationKey(seed: 13)
    let synchronous = ServerClock.Configuration(persistence: PersistencePolicy(writesInBackground: false))

    func synchronizedStore(_ base: ManualTimeBase) throws -> (MemoryCalibrationStore, UnixTime) {
        let store = MemoryCalibrationStore()
        let clock = ServerClock(timeBase: base, configuration: synchronous, store: store, keyProvider: key)
        for _ in 0..<4 {
            clock.calibrate(with: try Fixture.exchange(offset: Fixture.offset(serverAheadOfWall: 42, base: base), at: base.monotonicNow()))
            base.advance(by: .seconds(16))
        }
        let vouched = clock.reading().earliest
        try clock.flush()
        return (store, vouched)
    }

    /// The same boot ID, the monotonic clock 100,000 s further on, the wall clock 10 s: the
    /// calibration is not restored and the floor is kept as saved, not counted on by 100,000 s.
    @Test func aMonotonicClockThatRanAheadOfTheWallClockGivesOnlyTheFloor() throws {
        let base = ManualTimeBase()
        let (store, vouched) = try synchronizedStore(base)
        let saved = base.monotonicNow()
        base.advance(by: .seconds(10))
        base.reboot(bootSessionID: "manual-boot-1", monotonic: saved.advanced(by: .seconds(100_010)))
        let warnings = WarningLog()
        let clock = ServerClock(timeBase: base, configuration: synchronous, store: store, keyProvider: key, onWarning: warnings.record)
        let reading = clock.reading()
        #expect(reading.status == .floorOnly)
        #expect(reading.earliest >= vouched && reading.earliest < vouched.advanced(by: .seconds(60)), "\(reading.earliest) vs \(vouched)")
        #expect(!clock.hasCertainlyPassed(vouched.advanced(by: .seconds(3600))))
        #expect(warnings.all.contains { $0.contains("longer than the device clock") && $0.contains("floor is kept") }, "\(warnings.all)")
    }

    /// A store saved later on the monotonic clock than now (a namespace whose clock is behind).
    @Test func aStoreFromTheMonotonicFutureGivesOnlyTheFloor() throws {
        let base = ManualTimeBase(monotonic: MonotonicInstant(nanoseconds: 500_000_000_000))
        let (store, vouched) = try synchronizedStore(base)
        base.reboot(bootSessionID: "manual-boot-1", monotonic: MonotonicInstant(nanoseconds: 5_000_000_000))
        let clock = ServerClock(timeBase: base, configuration: synchronous, store: store, keyProvider: key)
        #expect(clock.reading().status == .floorOnly)
        #expect(clock.reading().earliest >= vouched)
    }

    /// Within the tolerance (the wall clock slewed, a little drift) the calibration is restored.
    @Test func aConsistentStoreIsRestored() throws {
        let base = ManualTimeBase()
        let (store, _) = try synchronizedStore(base)
        base.advance(by: .seconds(600))
        base.jumpWall(by: .seconds(-1))
        let clock = ServerClock(timeBase: base, configuration: synchronous, store: store, keyProvider: key)
        #expect(clock.reading().isRestored)
        #expect(clock.reading().status == .synchronized)
    }

    /// On Linux the time namespace's offsets are part of the boot session; the host's is the boot ID.
    @Test func timeNamespaceOffsetsArePartOfTheBootSession() {
        let host = "monotonic           0         0\nboottime            0         0\n"
        let moved = "monotonic      100000         0\nboottime       100000         0\n"
        #expect(BootSession.timeNamespaceSession(bootID: "b", offsets: host) == "b")
        #expect(BootSession.timeNamespaceSession(bootID: "b", offsets: "") == "b")
        let session = BootSession.timeNamespaceSession(bootID: "b", offsets: moved)
        #expect(session == "b;timens=boottime:100000:0,monotonic:100000:0")
        #expect(BootSession.timeNamespaceSession(bootID: "b", offsets: "monotonic 0 5\nboottime 0 0\n") == "b;timens=monotonic:0:5")
    }
}
