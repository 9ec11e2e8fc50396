import Testing
import TimeSync
import TimeSyncTesting

/// A time base is a Swift `Clock` on its monotonic clock: Swift's own sleeps run on it, and a
/// hand-moved one wakes them when a test moves it.
@Suite struct TimeBaseClockTests {
    @Test func swiftsSleepRunsOnAHandMovedTimeBase() async throws {
        let base = ManualTimeBase()
        #expect(base.now == base.monotonicNow())
        let start = base.now
        let sleeper = Task { try await Task.sleep(until: start.advanced(by: .seconds(3600)), clock: base) }
        #expect(await base.waitForSleepers(1), "Task.sleep waits on the time base")
        base.advance(by: .seconds(3599))
        #expect(await base.waitForSleepers(1), "not yet: a second to go")
        base.advance(by: .seconds(1))
        try await sleeper.value
        #expect(start.duration(to: base.now) == .seconds(3600))
    }

    @Test func aDeadlineIsAnInstantOnTheTimeBase() {
        let base = ManualTimeBase()
        let deadline = Deadline.after(.seconds(5), on: base)
        #expect(deadline.remaining(on: base) == .seconds(5) && !deadline.hasPassed(at: base.now))
        #expect(deadline.capping(.seconds(2), from: base.now) == Deadline.after(.seconds(2), on: base))
        base.advance(by: .seconds(6))
        #expect(deadline.remaining(on: base) == .zero && deadline.hasPassed(at: base.now))
    }
}
