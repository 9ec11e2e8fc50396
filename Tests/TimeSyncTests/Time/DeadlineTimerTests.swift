import Testing
import TimeSync
import TimeSyncTesting

/// Deadlines are kept on the time base's monotonic clock: a device asleep past a deadline finds it
/// passed, a wall-clock change moves nothing, and a cancelled timer never fires.
@Suite struct DeadlineTimerTests {
    final class Fired: Sendable {
        private let count = Locked(0)
        var value: Int { count.withLock { $0 } }
        func fire() { count.withLock { $0 += 1 } }
    }

    @Test func firesOnceWhenTheMonotonicClockPassesTheDeadline() async {
        let base = ManualTimeBase()
        let fired = Fired()
        let timer = DeadlineTimer(at: .after(.seconds(5), on: base), on: base) { fired.fire() }
        #expect(await base.waitForSleepers(1))
        base.jumpWall(by: .seconds(3600))
        base.advance(by: .seconds(4))
        #expect(await base.waitForSleepers(1), "still waiting after 4 s and a wall-clock jump")
        #expect(fired.value == 0)
        base.suspend(for: .seconds(60))  // the device sleeps through the deadline
        for _ in 0..<100_000 where fired.value == 0 { await Task.yield() }
        #expect(fired.value == 1)
        timer.cancel()
    }

    @Test func aCancelledTimerNeverFires() async {
        let base = ManualTimeBase()
        let fired = Fired()
        let timer = DeadlineTimer(at: .after(.seconds(5), on: base), on: base) { fired.fire() }
        #expect(await base.waitForSleepers(1))
        timer.cancel()
        for _ in 0..<100_000 where base.sleeperCount > 0 { await Task.yield() }
        base.advance(by: .seconds(10))
        for _ in 0..<1_000 { await Task.yield() }
        #expect(fired.value == 0)
    }
}
