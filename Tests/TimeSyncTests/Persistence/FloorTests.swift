import Foundation
import Testing
import TimeSync
import TimeSyncFixtures
import TimeSyncTesting

/// The floor across reboots: the store keeps the highest server time the clock vouched for, and
/// after a reboot a reading carries it (earliest = the floor, latest unbounded), on injected clocks.
@Suite struct FloorTests {
    let key = FixedCalibrationKey(seed: 7)
    let synchronous = ServerClock.Configuration(persistence: PersistencePolicy(writesInBackground: false))

    /// A clock on `store` synchronized to a server 42 s ahead of the wall clock, flushed; returns it
    /// and the `earliest` it vouched for at the flush.
    func synchronizedClock(_ base: ManualTimeBase, _ store: MemoryCalibrationStore) throws -> (ServerClock, UnixTime) {
        let clock = ServerClock(timeBase: base, configuration: synchronous, store: store, keyProvider: key)
        for _ in 0..<4 {
            clock.calibrate(with: try Fixture.exchange(offset: Fixture.offset(serverAheadOfWall: 42, base: base), at: base.monotonicNow()))
            base.advance(by: .seconds(16))
        }
        #expect(clock.isSynchronized)
        let vouched = clock.reading().earliest
        try clock.flush()
        return (clock, vouched)
    }

    func seconds(_ value: Int64) -> Duration { .seconds(value) }

    @Test func afterARebootAReadingCarriesTheFloor() throws {
        let base = ManualTimeBase()
        let store = MemoryCalibrationStore()
        let (_, vouched) = try synchronizedClock(base, store)
        base.reboot(bootSessionID: "manual-boot-2")
        let warnings = WarningLog()
        let clock = ServerClock(timeBase: base, configuration: synchronous, store: store, keyProvider: key, onWarning: warnings.record)
        let reading = clock.reading()
        #expect(reading.status == .floorOnly)
        #expect(reading.earliest == vouched, "the floor as saved, at the instant it is restored")
        #expect(reading.latest == UnixTime(nanoseconds: .max), "the upper bound does not survive a reboot")
        #expect(warnings.all.first?.contains("its floor is kept") == true, "\(warnings.all)")
        // A window wholly before the floor has certainly passed; nothing after it is certain.
        #expect(reading.position(in: vouched.advanced(by: seconds(-3600))..<vouched.advanced(by: seconds(-1))) == .after)
        #expect(reading.position(in: vouched.advanced(by: seconds(-1))..<vouched.advanced(by: seconds(3600))) == .uncertain)
        #expect(reading.position(in: vouched.advanced(by: seconds(3600))..<vouched.advanced(by: seconds(7200))) == .uncertain)
        #expect(clock.hasCertainlyPassed(vouched) && !clock.hasCertainlyPassed(vouched.advanced(by: .milliseconds(1))))
        #expect(!clock.isSynchronized)
    }

    /// Offline after the reboot the floor counts on at the slowest the drift bound allows, and the
    /// estimate never falls below it, whatever the device clock says.
    @Test func theFloorCountsOnAndTheDeviceClockCannotGoBelowIt() throws {
        let base = ManualTimeBase()
        let store = MemoryCalibrationStore()
        let (_, vouched) = try synchronizedClock(base, store)
        base.reboot(bootSessionID: "manual-boot-2")
        let clock = ServerClock(timeBase: base, configuration: synchronous, store: store, keyProvider: key)
        base.advance(by: .seconds(10_000))
        let later = clock.reading()
        // 10,000 s at 100 ppm slow: 9,999 s on (to the nanosecond's rounding down).
        let counted = vouched.duration(to: later.earliest)
        #expect(counted <= .seconds(9_999) && counted > .seconds(9_999) - .microseconds(1), "\(counted)")
        base.jumpWall(by: .seconds(-86_400 * 30))  // the user sets the device a month back
        #expect(clock.now >= clock.reading().earliest)
        #expect(clock.reading().serverTime == clock.reading().earliest)
    }

    @Test func aCountdownEndsOfflineAfterARebootWhenTheFloorIsPastTheTarget() async throws {
        let base = ManualTimeBase()
        let store = MemoryCalibrationStore()
        let (_, vouched) = try synchronizedClock(base, store)
        base.reboot(bootSessionID: "manual-boot-2")
        let clock = ServerClock(timeBase: base, configuration: synchronous, store: store, keyProvider: key)
        base.jumpWall(by: .seconds(-86_400))
        var passed = clock.countdown(to: vouched.advanced(by: .seconds(-5)), untilCertain: true).makeAsyncIterator()
        #expect(try await passed.next()?.isFinished == true, "certainly passed, offline")
        var ahead = clock.countdown(to: vouched.advanced(by: .seconds(60)), untilCertain: true).makeAsyncIterator()
        #expect(try await ahead.next()?.isFinished == false, "a minute past the floor is not certain")
    }

    /// The floor never goes down: the clock writes it on (advanced) when it has nothing better, and a
    /// store's lower floor is not believed over the one held.
    @Test func theFloorNeverGoesDown() throws {
        let base = ManualTimeBase()
        let store = MemoryCalibrationStore()
        let (_, vouched) = try synchronizedClock(base, store)
        base.reboot(bootSessionID: "manual-boot-2")
        let clock = ServerClock(timeBase: base, configuration: synchronous, store: store, keyProvider: key)
        base.advance(by: .seconds(100))
        try clock.flush()
        let sealed = try #require(store.data)
        let content = try PersistedCalibration.content(ofSealed: sealed, key: key.bytes)
        let saved = try JSONDecoder().decode(PersistedCalibration.self, from: content)
        #expect(saved.calibration == nil)
        #expect(try #require(saved.floor) >= vouched.advanced(by: .seconds(99)), "written on, never lower")

        var state = CalibrationState(estimator: IntersectionEstimator(), minimumAgreeingSources: 1, offsetChangeThreshold: .milliseconds(1))
        let at = MonotonicInstant(nanoseconds: 1_000_000_000)
        let first = state.raiseFloor(to: vouched, at: at)
        let older = state.raiseFloor(to: vouched.advanced(by: seconds(-60)), at: at)
        #expect(first && !older, "an older store's floor is not believed")
        #expect(state.floor(at: at) == vouched)
        let newer = state.raiseFloor(to: vouched.advanced(by: seconds(60)), at: at)
        #expect(newer && state.floor(at: at) == vouched.advanced(by: seconds(60)))
    }

    /// A store sealed under another key, an unsealed one, or one edited by hand gives no floor.
    @Test(arguments: ["foreign", "unsealed", "edited"])
    func aStoreThatDoesNotVerifyGivesNoFloor(_ kind: String) throws {
        let base = ManualTimeBase()
        let store = MemoryCalibrationStore()
        let (_, vouched) = try synchronizedClock(base, store)
        let sealed = try #require(store.data)
        let content = try PersistedCalibration.content(ofSealed: sealed, key: key.bytes)
        switch kind {
        case "foreign":
            try store.save(try PersistedCalibration.seal(content: content, key: FixedCalibrationKey(seed: 8).bytes))
        case "unsealed":
            try store.save(content)
        default:
            // Raise the floor by a day inside the sealed content, keeping the tag: it no longer verifies.
            var envelope = try #require(try JSONSerialization.jsonObject(with: sealed) as? [String: Any])
            let encoded = try #require(envelope["content"] as? String)
            let decoded = try #require(Data(base64Encoded: encoded))
            var text = try #require(String(data: decoded, encoding: .utf8))
            let floor = "\"floor\":{\"nanoseconds\":\(vouched.nanoseconds)}"
            #expect(text.contains(floor))
            text = text.replacingOccurrences(of: floor, with: "\"floor\":{\"nanoseconds\":\(vouched.advanced(by: .seconds(86_400)).nanoseconds)}")
            envelope["content"] = Data(text.utf8).base64EncodedString()
            try store.save(try JSONSerialization.data(withJSONObject: envelope))
        }
        base.reboot(bootSessionID: "manual-boot-2")
        let clock = ServerClock(timeBase: base, configuration: synchronous, store: store, keyProvider: key)
        #expect(clock.reading().status == .unsynchronized)
        #expect(!clock.hasCertainlyPassed(vouched.advanced(by: .seconds(-3600))))
    }

    /// With only the floor after a reboot, a device clock set back below it is behind by at least
    /// the gap; one above it cannot be judged.
    @Test func aDeviceClockSetBackBelowTheFloorIsBehind() throws {
        let base = ManualTimeBase()
        let store = MemoryCalibrationStore()
        _ = try synchronizedClock(base, store)
        base.reboot(bootSessionID: "manual-boot-2")
        let clock = ServerClock(timeBase: base, configuration: synchronous, store: store, keyProvider: key)
        #expect(clock.deviceClockCheck(tolerance: .seconds(60)) == .unknown, "42 s below the floor is within a minute's tolerance")
        base.jumpWall(by: .seconds(-86_400))
        let gap = base.wallNow().duration(to: clock.reading().earliest)
        #expect(clock.deviceClockCheck(tolerance: .seconds(60)) == .behind(by: gap, error: nil))
        #expect(gap > .seconds(86_400))
    }

    /// The first fresh calibration after the reboot replaces the floor; a reset forgets it.
    @Test func aFreshCalibrationReplacesTheFloorAndAResetForgetsIt() throws {
        let base = ManualTimeBase()
        let store = MemoryCalibrationStore()
        _ = try synchronizedClock(base, store)
        base.reboot(bootSessionID: "manual-boot-2")
        let clock = ServerClock(timeBase: base, configuration: synchronous, store: store, keyProvider: key)
        #expect(clock.reading().status == .floorOnly)
        clock.calibrate(with: try Fixture.exchange(offset: Fixture.offset(serverAheadOfWall: 42, base: base), at: base.monotonicNow()))
        #expect(clock.reading().status == .synchronized)
        clock.reset()
        #expect(clock.reading().status == .unsynchronized)
    }
}
