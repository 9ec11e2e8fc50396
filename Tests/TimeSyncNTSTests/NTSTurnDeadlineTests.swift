#if NTS
import Testing
import TimeSync
import TimeSyncTesting
import TimeSyncSockets
@testable import TimeSyncNTS

/// One measurement of an NTS client at a time: the wait for a turn counts against the waiting
/// measurement's deadline, on the time base's clock.
@Suite struct NTSTurnDeadlineTests {
    /// A measurement stuck on a silent server holds the turn; another, with a minute to go on a
    /// hand-moved clock, gives up when the clock passes its deadline, saying why.
    @Test(.timeLimit(.minutes(1))) func theWaitForATurnEndsAtTheDeadline() async throws {
        let base = ManualTimeBase()
        let exclusion = AsyncExclusion()
        let release = Waiters()
        let released = Locked(false)
        let entered = Locked(false)
        let holder = Task {
            try await exclusion.run(until: .after(.seconds(3600), on: base), on: base) {
                entered.withLock { $0 = true }
                await release.wait { released.withLock { $0 } }
            }
        }
        while !entered.withLock({ $0 }) { await Task.yield() }
        // The holder's own turn timer ended when it got the turn: wait until it has left the clock.
        for _ in 0..<100_000 where base.sleeperCount > 0 { await Task.yield() }
        #expect(base.sleeperCount == 0)
        let waiter = Task {
            try await exclusion.run(until: .after(.seconds(60), on: base), on: base) { "ran" }
        }
        #expect(await base.waitForSleepers(1), "the waiter's deadline is on the clock")
        base.advance(by: .seconds(59))
        #expect(base.sleeperCount == 1, "59 s: still waiting")
        base.advance(by: .seconds(2))
        let error = await #expect(throws: NTPClientError.self) { try await waiter.value }
        #expect(error?.code == .timeout)
        #expect("\(error.map { "\($0)" } ?? "")".contains("another exchange of this client"))

        // The holder's turn ends; the next measurement gets one at once.
        released.withLock { $0 = true }
        release.wakeAll()
        try await holder.value
        #expect(try await exclusion.run(until: .after(.seconds(1), on: base), on: base) { "ran" } == "ran")
    }
}
#endif
