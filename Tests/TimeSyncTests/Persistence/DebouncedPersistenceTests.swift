import Foundation
import Testing
import TimeSync
import TimeSyncFixtures
import TimeSyncTesting

/// Writing the store costs nothing per sample: at once for the first calibration and significant
/// changes, otherwise at most once per interval, in the background.
@Suite struct DebouncedPersistenceTests {
    let s = Fixture.second
    /// The stores here are in memory, and so is their key: never the user's key file.
    let key = FixedCalibrationKey(seed: 5)

    @Test func routineCalibrationsAreWrittenOncePerInterval() async throws {
        let base = ManualTimeBase()
        let store = MemoryStore()
        let clock = ServerClock(timeBase: base, configuration: .init(persistence: .init(minimumInterval: .seconds(60))), store: store, keyProvider: key)
        // The first calibration: written at once (in the background).
        clock.calibrate(with: try Fixture.exchange(offset: 3 * s, at: base.monotonicNow()))
        await clock.storeWritesIdle()
        #expect(store.saves == 1)
        // Fifty more within the minute, the same offset: nothing written yet…
        for _ in 0..<50 {
            base.advance(by: .seconds(1))
            clock.calibrate(with: try Fixture.exchange(offset: 3 * s, at: base.monotonicNow()))
        }
        await clock.storeWritesIdle()
        #expect(store.saves == 1)
        #expect(await base.waitForSleepers(1), "one deferred write is scheduled")
        // …until the minute is up: then once, with the newest state.
        base.advance(by: .seconds(10))
        #expect(await base.waitForSleepers(0))
        await clock.storeWritesIdle()
        #expect(store.saves == 2)
        let content = try PersistedCalibration.content(ofSealed: try #require(try store.load()), key: key.bytes)
        let saved = try JSONDecoder().decode(PersistedCalibration.self, from: content)
        #expect(saved.samples.last?.time == clock.calibration?.time)
    }

    @Test func aSignificantChangeIsWrittenAtOnce() async throws {
        let base = ManualTimeBase()
        let store = MemoryStore()
        let clock = ServerClock(timeBase: base, configuration: .init(persistence: .init(minimumInterval: .seconds(60), significantChange: .milliseconds(10))), store: store, keyProvider: key)
        clock.calibrate(with: try Fixture.exchange("a", offset: 3 * s, at: base.monotonicNow()))
        await clock.storeWritesIdle()
        base.advance(by: .seconds(1))
        // The server stepped 2 s: the first sample after it is held (the status drops to provisional,
        // written at once), the second confirms the step and moves the estimate (written at once).
        clock.calibrate(with: try Fixture.exchange("a", offset: 5 * s, at: base.monotonicNow()))
        await clock.storeWritesIdle()
        #expect(store.saves == 2)
        base.advance(by: .seconds(1))
        clock.calibrate(with: try Fixture.exchange("a", offset: 5 * s, at: base.monotonicNow()))
        await clock.storeWritesIdle()
        #expect(store.saves == 3)
        #expect(clock.isSynchronized)
    }

    @Test func flushWritesAtOnceAndWriteErrorsAreEvents() async throws {
        let base = ManualTimeBase()
        let store = MemoryStore()
        let clock = ServerClock(timeBase: base, store: store, keyProvider: key)
        let events = clock.events()
        clock.calibrate(with: try Fixture.exchange(offset: 3 * s, at: base.monotonicNow()))
        await clock.storeWritesIdle()
        base.advance(by: .seconds(1))
        clock.calibrate(with: try Fixture.exchange(offset: 3 * s, at: base.monotonicNow()))
        try clock.flush()
        #expect(store.saves == 2)
        store.failing = true
        let failure = try #require(throws: TimeSyncError.self) { try clock.flush() }
        #expect(failure.code == .storeUnavailable && failure.cause is CocoaError, "the store's own error is the cause: \(failure)")
        #expect(clock.isSynchronized, "a failed write changes nothing")
        for await event in events {
            if case .storeFailed(let reason) = event {
                #expect(!reason.isEmpty)
                break
            }
        }
    }

    @Test func everyCalibrationPolicyWritesEachOne() async throws {
        let base = ManualTimeBase()
        let store = MemoryStore()
        let clock = ServerClock(timeBase: base, configuration: .init(persistence: .everyCalibration), store: store, keyProvider: key)
        for _ in 0..<5 {
            clock.calibrate(with: try Fixture.exchange(offset: 3 * s, at: base.monotonicNow()))
            await clock.storeWritesIdle()
            base.advance(by: .seconds(1))
        }
        #expect(store.saves == 5)
    }

    @Test func aSynchronousPolicyWritesOnTheCallingThread() throws {
        let base = ManualTimeBase()
        let store = MemoryStore()
        let clock = ServerClock(
            timeBase: base, configuration: .init(persistence: .init(writesInBackground: false)), store: store, keyProvider: key)
        clock.calibrate(with: try Fixture.exchange(offset: 3 * s, at: base.monotonicNow()))
        #expect(store.saves == 1, "written before calibrate returned")
    }

    @Test func theScheduleAloneIsDeterministic() {
        var schedule = PersistenceSchedule(policy: .init(minimumInterval: .seconds(10), significantChange: .milliseconds(1)))
        let t0 = MonotonicInstant(nanoseconds: 1_000_000_000_000)
        let decisions = [
            schedule.changed(at: t0, estimate: 0, status: .synchronized),
            schedule.changed(at: t0.advanced(by: .seconds(1)), estimate: 500_000, status: .synchronized),
            schedule.changed(at: t0.advanced(by: .seconds(2)), estimate: 2_000_000, status: .synchronized),
        ]
        #expect(decisions == [.writeNow, .writeAt(t0.advanced(by: .seconds(10))), .writeNow])
        let due = schedule.deferredWriteDue(at: t0.advanced(by: .seconds(12)), estimate: 2_000_000, status: .synchronized)
        #expect(!due, "the significant change already wrote the pending state")
        let statusChange = schedule.changed(at: t0.advanced(by: .seconds(3)), estimate: 2_000_000, status: .noMajority)
        let routineLater = schedule.changed(at: t0.advanced(by: .seconds(13)), estimate: 2_000_000, status: .noMajority)
        #expect(statusChange == .writeNow && routineLater == .writeNow)
    }
}
