import Testing
import TimeSync
import TimeSyncWire
import TimeSyncTesting

/// A server's `Retry-After` (``PollOutcome/retryAfter(_:)``) in the schedule and the poller: the
/// next poll waits at least that long, and nothing makes it sooner.
@Suite struct RetryAfterTests {
    @Test func theNextPollWaitsAtLeastTheRetryAfter() {
        var schedule = PollSchedule(policy: PollPolicy())
        #expect(schedule.next(after: .retryAfter(.seconds(3600))) == .seconds(3600))
        // Never shorter than a failure's backoff: a short Retry-After does not speed polling up.
        var steady = PollSchedule(policy: PollPolicy(burstCount: 1))
        #expect(steady.next(after: .sample) == .seconds(64))
        #expect(steady.next(after: .retryAfter(.seconds(1))) == .seconds(128))
        #expect(steady.next(after: .retryAfter(.zero)) == .seconds(256))
    }

    @Test func aBogusRetryAfterIsClampedToADay() {
        var schedule = PollSchedule(policy: PollPolicy())
        #expect(schedule.next(after: .retryAfter(.seconds(Int64.max))) == HTTPRetryAfter.maximum)
        #expect(schedule.next(after: .retryAfter(.seconds(-60))) == .seconds(2))
    }

    /// 429 with `Retry-After: 3600` to every request, driven through the poller on a hand-moved
    /// clock: one request in ten minutes, the next an hour after the first.
    @Test func aServerThatSaysRetryAfterAnHourGetsOneRequestInTenMinutes() {
        let base = ManualTimeBase()
        var poller = SourcePoller(start: base.monotonicNow())
        let (sends, last) = SourcePollerTests.drive(&poller, on: base, until: .seconds(600)) { _ in
            .retryAfter(.seconds(3600))
        }
        #expect(last == nil)
        #expect(sends == [0])
        #expect(poller.nextPoll.nanoseconds >= 3_600_000_000_000)
        // (The drive above ended by sleeping until the next poll, an hour after the first.)
        let (later, _) = SourcePollerTests.drive(&poller, on: base, until: .seconds(4 * 3600)) { _ in
            .retryAfter(.seconds(3600))
        }
        #expect(later.count == 4 && zip(later.dropFirst(), later).allSatisfy { $0 - $1 >= 3600 }, "\(later)")
    }

    @Test func aRestartedBurstOrAResolvedNameWaitsForTheRetryAfter() {
        let base = ManualTimeBase()
        var poller = SourcePoller(start: base.monotonicNow())
        #expect(poller.nextAction(at: base.monotonicNow()) == .send)
        poller.handle(.retryAfter(.seconds(3600)), at: base.monotonicNow())
        let allowed = poller.nextPoll
        base.advance(by: .seconds(60))
        poller.restartBurst(at: base.monotonicNow())
        #expect(poller.nextPoll == allowed)
        #expect(poller.nextAction(at: base.monotonicNow()) == .wait(until: allowed))
        poller.resolved(at: base.monotonicNow())
        #expect(poller.nextPoll == allowed)
        // Once the wait is over, a restart polls at once again.
        base.advance(by: base.monotonicNow().duration(to: allowed))
        #expect(poller.nextAction(at: base.monotonicNow()) == .send)
        poller.handle(.sample, at: base.monotonicNow())
        base.advance(by: .seconds(1))
        poller.restartBurst(at: base.monotonicNow())
        #expect(poller.nextAction(at: base.monotonicNow()) == .send)
    }
}
