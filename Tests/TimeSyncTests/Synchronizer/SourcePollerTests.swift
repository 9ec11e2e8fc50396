import Testing
import TimeSync
import TimeSyncTesting

/// The poller driven as a transport drives it, on a hand-moved clock: hours of polling, no sleeps.
@Suite struct SourcePollerTests {
    /// Runs the poller until `until`, answering each send with `outcome(pollNumber)`; returns the
    /// instants of the sends (seconds after the start) and the action that ended the run.
    static func drive(
        _ poller: inout SourcePoller, on base: ManualTimeBase, until end: Duration,
        outcome: (Int) -> PollOutcome
    ) -> (sends: [Double], last: PollAction?) {
        let start = base.monotonicNow()
        var sends: [Double] = []
        while start.duration(to: base.monotonicNow()) < end {
            let action = poller.nextAction(at: base.monotonicNow())
            switch action {
            case .send:
                sends.append(start.duration(to: base.monotonicNow()).secondsValue)
                base.advance(by: .milliseconds(20))  // the exchange's round trip
                poller.handle(outcome(sends.count), at: base.monotonicNow())
            case .wait(let until):
                base.advance(by: base.monotonicNow().duration(to: until))
            case .resolve, .demobilize:
                return (sends, action)
            }
        }
        return (sends, nil)
    }

    @Test func burstThenDoublingIntervalsToTheMaximum() {
        let base = ManualTimeBase()
        var poller = SourcePoller(start: base.monotonicNow())
        let (sends, last) = Self.drive(&poller, on: base, until: .seconds(4000)) { _ in .sample }
        #expect(last == nil)
        let gaps = zip(sends.dropFirst(), sends).map { ($0 - $1).rounded() }
        #expect(Array(gaps.prefix(9)) == [2, 2, 2, 64, 128, 256, 512, 1024, 1024])
        #expect(poller.reachability == 0xFF && poller.isReachable)
    }

    @Test func anUnreachableAddressAsksForTheNameAgainAfterEightSilentPolls() {
        let base = ManualTimeBase()
        var poller = SourcePoller(start: base.monotonicNow())
        // Two good replies, then silence.
        let (sends, last) = Self.drive(&poller, on: base, until: .seconds(100_000)) { $0 <= 2 ? .sample : .failure }
        #expect(last == .resolve)
        #expect(sends.count == 10)
        #expect(poller.reachability == 0 && !poller.isReachable)
        #expect(poller.nextAction(at: base.monotonicNow()) == .resolve, "the verdict stays")
    }

    /// Resolving the name again does not make the source reachable: it stays unreachable until an
    /// answer, and asks again after eight more silent polls; an answer ends it.
    @Test func aResolvedNameStaysUnreachableUntilItAnswers() {
        let base = ManualTimeBase()
        var poller = SourcePoller(start: base.monotonicNow())
        var (sends, last) = Self.drive(&poller, on: base, until: .seconds(100_000)) { _ in .failure }
        #expect(last == .resolve && sends.count == 8 && poller.isUnreachable)
        poller.resolved(at: base.monotonicNow())
        #expect(poller.isUnreachable, "a new address is not an answer")
        (sends, last) = Self.drive(&poller, on: base, until: .seconds(100_000)) { _ in .failure }
        #expect(last == .resolve && sends.count == 8, "eight more silent polls before asking again")
        poller.resolved(at: base.monotonicNow())
        (sends, last) = Self.drive(&poller, on: base, until: .seconds(5_000)) { _ in .sample }
        #expect(!poller.isUnreachable && poller.isReachable && last == nil && !sends.isEmpty)
    }

    @Test func denyDemobilizesAndRateSlowsDown() {
        let base = ManualTimeBase()
        var poller = SourcePoller(start: base.monotonicNow())
        let (sends, last) = Self.drive(&poller, on: base, until: .seconds(100_000)) {
            switch $0 {
            case 2: .slowDown(interval: nil)
            case 4: .stop
            default: .sample
            }
        }
        #expect(last == .demobilize)
        #expect(sends.count == 4)
        // After RATE no more burst spacing: the interval is at least twice the floor.
        #expect(sends[2] - sends[1] >= 128)
    }

    @Test func restartBurstPollsAtOnceButNotAfterRate() {
        let base = ManualTimeBase()
        var poller = SourcePoller(start: base.monotonicNow())
        _ = Self.drive(&poller, on: base, until: .seconds(600)) { _ in .sample }
        var action = poller.nextAction(at: base.monotonicNow())
        if action == .send {  // the run ended just as a poll fell due
            poller.handle(.sample, at: base.monotonicNow())
            action = poller.nextAction(at: base.monotonicNow())
        }
        guard case .wait(let until) = action else {
            Issue.record("expected a wait")
            return
        }
        #expect(base.monotonicNow().duration(to: until) > .seconds(2))
        poller.restartBurst(at: base.monotonicNow())
        #expect(poller.nextAction(at: base.monotonicNow()) == .send)
        poller.handle(.sample, at: base.monotonicNow())
        #expect(poller.nextAction(at: base.monotonicNow()) == .wait(until: base.monotonicNow().advanced(by: .seconds(2))))

        var kissed = SourcePoller(start: base.monotonicNow())
        #expect(kissed.nextAction(at: base.monotonicNow()) == .send)
        kissed.handle(.slowDown(interval: nil), at: base.monotonicNow())
        let due = kissed.nextPoll
        kissed.restartBurst(at: base.monotonicNow())
        #expect(kissed.schedule.burstRemaining == 0, "a server that asked for fewer requests gets no burst")
        #expect(kissed.nextPoll <= due)
    }

    @Test func aLostExchangeCountsAsAFailure() {
        var poller = SourcePoller(start: MonotonicInstant(nanoseconds: 0), unreachableAfter: 2)
        #expect(poller.nextAction(at: MonotonicInstant(nanoseconds: 0)) == .send)
        // Asked again without an outcome: the first poll failed, the next is due after the burst gap.
        #expect(poller.nextAction(at: MonotonicInstant(nanoseconds: 1)) == .wait(until: MonotonicInstant(nanoseconds: 2_000_000_001)))
        #expect(poller.unansweredPolls == 1 && poller.polls == 1)
    }

    /// A transport that asks again before reporting, with a zero burst gap, still spends the shared
    /// budget: one request an hour with a burst of one lets exactly one send through at one instant.
    @Test func askingAgainWithoutReportingNeverBypassesTheBudget() {
        let policy = PollPolicy(burstCount: 8, burstInterval: .zero)
        var poller = SourcePoller(policy: policy, start: MonotonicInstant(nanoseconds: 0))
        var budget = RequestBudget(requestsPerHour: 1, burst: 1)
        let now = MonotonicInstant(nanoseconds: 0)
        var sends = 0
        for _ in 0..<4 where poller.nextAction(at: now, budget: &budget) == .send { sends += 1 }
        #expect(sends == 1)
        #expect(poller.polls == 1)
    }
}
