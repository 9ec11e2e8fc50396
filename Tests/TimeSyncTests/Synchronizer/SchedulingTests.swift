import Testing
import TimeSync
import TimeSyncTesting

/// Polling that follows the clock's error, and a request budget, on a hand-moved clock.
@Suite struct SchedulingTests {
    @Test func intervalsGrowWhileTheErrorIsSmallAndShrinkWhenItWidens() {
        let policy = PollPolicy(burstCount: 1, minimumInterval: .seconds(64), maximumInterval: .seconds(1024), targetError: .milliseconds(50))
        var poller = SourcePoller(policy: policy, start: MonotonicInstant(nanoseconds: 0))
        var now = MonotonicInstant(nanoseconds: 0)
        var gaps: [Int64] = []
        // The error after each poll: small for a while, then the network degrades, then recovers.
        let errors: [Duration] = [.milliseconds(5), .milliseconds(5), .milliseconds(5), .milliseconds(5), .milliseconds(80), .milliseconds(90), .milliseconds(40), .milliseconds(10)]
        for error in errors {
            let action = poller.nextAction(at: now)
            #expect(action == .send)
            poller.handle(.sample, at: now, error: error)
            gaps.append(now.duration(to: poller.nextPoll).components.seconds)
            now = poller.nextPoll
        }
        // The burst's one poll leads to the floor; small errors double; errors above 50 ms halve;
        // 40 ms (between half the target and the target) holds; 10 ms doubles again.
        #expect(gaps == [64, 128, 256, 512, 256, 128, 128, 256])
    }

    @Test func theBudgetCapsRequestsPerHourWhateverTheSchedule() {
        // Eight sources that would each poll every 16 s (≈ 1800 requests an hour) under a 60/hour cap.
        var budget = RequestBudget(requestsPerHour: 60, burst: 8)
        let policy = PollPolicy(burstCount: 4, burstInterval: .seconds(2), minimumInterval: .seconds(16), maximumInterval: .seconds(16))
        var pollers = (0..<8).map { _ in SourcePoller(policy: policy, start: MonotonicInstant(nanoseconds: 0)) }
        var now = MonotonicInstant(nanoseconds: 0)
        let end = MonotonicInstant(nanoseconds: 3 * 3_600_000_000_000)
        var sent = 0
        while now < end {
            var next = end
            for index in pollers.indices {
                switch pollers[index].nextAction(at: now, budget: &budget) {
                case .send:
                    sent += 1
                    pollers[index].handle(.sample, at: now)
                    next = min(next, pollers[index].nextPoll)
                case .wait(let until): next = min(next, until)
                case .resolve, .demobilize: Issue.record("no source should stop")
                }
            }
            now = max(next, now.advanced(by: .milliseconds(1)))
        }
        // 8 at once, then one a minute: 8 + 180 over three hours.
        #expect(sent <= 8 + 180 && sent >= 180, "\(sent) requests")
    }

    @Test func anUnlimitedBudgetNeverDefers() {
        var budget = RequestBudget.unlimited
        let now = MonotonicInstant(nanoseconds: 42)
        var taken = 0
        for _ in 0..<10_000 where budget.take(at: now) { taken += 1 }
        #expect(taken == 10_000)
        #expect(budget.nextToken(at: now) == now)
        #expect(RequestBudget(requestsPerHour: .nan).requestsPerHour == nil)
        #expect(RequestBudget(requestsPerHour: -3).requestsPerHour == nil)
    }

    @Test func anEmptyBudgetSaysWhenTheNextTokenComes() {
        var budget = RequestBudget(requestsPerHour: 3600, burst: 1)  // one a second
        let start = MonotonicInstant(nanoseconds: 1_000_000_000)
        let first = budget.take(at: start)
        let second = budget.take(at: start)
        #expect(first && !second)
        #expect(budget.nextToken(at: start) == start.advanced(by: .seconds(1)))
        let later = budget.take(at: start.advanced(by: .seconds(1)))
        #expect(later)
    }
}
