#if canImport(Observation)
import Observation
import Testing
import TimeSync
import TimeSyncFixtures
import TimeSyncObservation
import TimeSyncTesting

/// The observable model on a hand-moved clock: observation fires on real changes, refreshes keep the
/// cadence, events refresh at once, countdowns tick and end, and the tasks end with the model. The
/// model needs Observation (macOS 14, iOS 17): the tests say so, as an app would.
@MainActor @Suite struct ServerClockModelTests {
    let s = Fixture.second

    /// Whether an observation fired.
    final class Fired: Sendable {
        private let fired = Locked(false)
        var isSet: Bool { fired.withLock { $0 } }
        func set() { fired.withLock { $0 = true } }
    }

    /// Fires when `read` observes a change.
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    func observe(_ read: @escaping @MainActor () -> Void) -> Fired {
        let fired = Fired()
        withObservationTracking { read() } onChange: { fired.set() }
        return fired
    }

    /// Yields (never sleeps) until `condition` holds, giving the model's tasks their turn.
    func yieldUntil(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<100_000 {
            if condition() { return true }
            await Task.yield()
        }
        return condition()
    }

    /// Yields `count` times: room for any task that could run to do so.
    func yieldMany(_ count: Int = 1_000) async {
        for _ in 0..<count { await Task.yield() }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aCalibrationFiresObservationOfTheStatusAndTheReading() async throws {
        let base = ManualTimeBase()
        let clock = ServerClock(timeBase: base)
        let model = ServerClockModel(clock: clock, refreshInterval: .seconds(3600))
        defer { model.stop() }
        #expect(model.status == .unsynchronized && model.reading.status == .unsynchronized)
        let status = observe { _ = model.status }
        let reading = observe { _ = model.reading }
        clock.calibrate(with: try Fixture.exchange(offset: 5 * s, at: base.monotonicNow(), forward: 0, backward: 0))
        #expect(await yieldUntil { status.isSet && reading.isSet })
        #expect(model.status == .synchronized)
        #expect(model.reading == clock.reading())

        // A refresh that leaves the status as it was does not disturb a view that reads only the status.
        let statusAgain = observe { _ = model.status }
        let readingAgain = observe { _ = model.reading }
        base.advance(by: .milliseconds(100))
        clock.calibrate(with: try Fixture.exchange(offset: 5 * s, at: base.monotonicNow(), forward: 0, backward: 0))
        #expect(await yieldUntil { readingAgain.isSet })
        await yieldMany()
        #expect(!statusAgain.isSet)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func theReadingIsRefreshedAtTheCadenceAndNotBefore() async throws {
        let base = ManualTimeBase()
        let clock = ServerClock(timeBase: base)
        clock.calibrate(with: try Fixture.exchange(offset: 5 * s, at: base.monotonicNow(), forward: 0, backward: 0))
        let model = ServerClockModel(clock: clock, refreshInterval: .seconds(1))
        defer { model.stop() }
        let start = model.reading.monotonicTime
        #expect(await base.waitForSleepers(1))
        #expect(base.nextWakeup == start.advanced(by: .seconds(1)))

        let early = observe { _ = model.reading }
        base.advance(by: .milliseconds(999))
        await yieldMany()
        #expect(!early.isSet)
        #expect(model.reading.monotonicTime == start)

        base.advance(by: .milliseconds(1))
        #expect(await yieldUntil { early.isSet })
        #expect(model.reading.monotonicTime == start.advanced(by: .seconds(1)))
        #expect(model.reading == clock.reading())

        // Asleep 2.5 s: one refresh on waking, then back on the whole seconds after the start.
        #expect(await base.waitForSleepers(1))
        base.suspend(for: .milliseconds(2_500))
        #expect(await yieldUntil { model.reading.monotonicTime == start.advanced(by: .milliseconds(3_500)) })
        #expect(await base.waitForSleepers(1))
        #expect(base.nextWakeup == start.advanced(by: .seconds(4)))
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aSynchronizerEventRefreshesAtOnce() async throws {
        let base = ManualTimeBase()
        let sources = (0..<3).map { ScriptedTimeSource("s\($0)", offset: 5 * s, base: base) }
        let sync = try TimeSynchronizer(sources: sources, timeBase: base)
        let model = ServerClockModel(synchronizer: sync, refreshInterval: .seconds(3600))
        let start = base.monotonicNow()
        sync.start()
        // The sources answer without the clock moving: only the events can have refreshed the model.
        #expect(await yieldUntil { model.status == .synchronized })
        #expect(base.monotonicNow() == start)
        model.stop()
        await sync.stop()

        // A trigger changes nothing on the clock; the synchronizer's own event refreshes the model.
        let idle = try TimeSynchronizer(sources: [ScriptedTimeSource("idle", offset: 5 * s, base: base)], timeBase: base)
        let watching = ServerClockModel(synchronizer: idle, refreshInterval: .seconds(3600))
        defer { watching.stop() }
        let created = watching.reading.monotonicTime
        base.advance(by: .seconds(1))
        idle.resynchronize(reason: "the app entered the foreground")
        #expect(await yieldUntil { watching.reading.monotonicTime == created.advanced(by: .seconds(1)) })
        #expect(watching.status == .unsynchronized)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func theCountdownReportsTheRemainingTimeFollowsRecalibrationAndEnds() async throws {
        let base = ManualTimeBase()
        let clock = ServerClock(timeBase: base)
        clock.calibrate(with: try Fixture.exchange("a", offset: 0, at: base.monotonicNow(), forward: 0, backward: 0))
        let model = ServerClockModel(clock: clock, refreshInterval: .seconds(3600))
        defer { model.stop() }
        #expect(model.countdown == nil)
        model.startCountdown(to: clock.now.advanced(by: .seconds(5)))
        #expect(await yieldUntil { model.countdown?.shown == 5 })
        #expect(model.countdown?.remaining == .seconds(5))

        #expect(await base.waitForSleepers(2))
        base.advance(by: .milliseconds(1_500))
        #expect(await yieldUntil { model.countdown?.shown == 4 })
        #expect(model.countdown?.remaining == .milliseconds(3_500))

        // The server turns out to be 2 s ahead: the countdown shows it at once, before its next tick.
        // The countdown's ticks are computed off the main actor: wait until they sleep, so that none is
        // computed between the reset and the new calibration (an unsynchronized clock reads device time).
        #expect(await base.waitForSleepers(2))
        clock.reset()
        clock.calibrate(with: try Fixture.exchange("a", offset: 2 * s, at: base.monotonicNow(), forward: 0, backward: 0))
        #expect(await yieldUntil { model.countdown?.shown == 2 })
        #expect(model.countdown?.remaining == .milliseconds(1_500))

        #expect(await base.waitForSleepers(2))
        base.advance(by: .seconds(2))
        #expect(await yieldUntil { model.countdown?.isFinished == true })
        #expect(model.countdown?.remaining == .zero)
        // Finished: only the refresh task still sleeps, and later events leave the final tick alone.
        #expect(await yieldUntil { base.sleeperCount == 1 })
        clock.reset()
        clock.calibrate(with: try Fixture.exchange("a", offset: -10 * s, at: base.monotonicNow(), forward: 0, backward: 0))
        await yieldMany()
        #expect(model.countdown?.isFinished == true)

        model.cancelCountdown()
        #expect(model.countdown == nil)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func stopAndDeallocationEndTheTasks() async throws {
        let base = ManualTimeBase()
        let clock = ServerClock(timeBase: base)
        clock.calibrate(with: try Fixture.exchange(offset: 5 * s, at: base.monotonicNow(), forward: 0, backward: 0))

        let stopped = ServerClockModel(clock: clock)
        stopped.startCountdown(to: clock.now.advanced(by: .seconds(60)))
        #expect(await base.waitForSleepers(2))
        stopped.stop()
        #expect(await yieldUntil { base.sleeperCount == 0 })
        let last = stopped.reading
        let lastTick = stopped.countdown
        base.advance(by: .seconds(5))
        clock.calibrate(with: try Fixture.exchange(offset: 6 * s, at: base.monotonicNow(), forward: 0, backward: 0))
        await yieldMany()
        #expect(stopped.reading == last && stopped.countdown == lastTick)

        var model: ServerClockModel? = ServerClockModel(clock: clock)
        model?.startCountdown(to: clock.now.advanced(by: .seconds(60)))
        #expect(await base.waitForSleepers(2))
        weak let released = model
        model = nil
        #expect(released == nil, "the model's tasks hold no reference to it")
        #expect(await yieldUntil { base.sleeperCount == 0 })
    }
}
#endif
