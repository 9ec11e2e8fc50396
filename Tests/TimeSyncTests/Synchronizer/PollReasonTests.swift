import Testing
import TimeSync
import TimeSyncFixtures

/// Why the next poll comes when it does, as the diagnostics say, for each rule of the schedule: the
/// core driven with hand-picked instants and made-up replies.
@Suite struct PollReasonTests {
    let start = MonotonicInstant(nanoseconds: 1_000 * Fixture.second)
    let view = SynchronizerCore.ClockView(status: .unsynchronized, selected: [], heard: [], suspects: [], wallShift: 0)

    /// Polls source 0 at its next due instant and reports `event` for it.
    /// - Returns: The instant it was polled.
    @discardableResult
    static func pollOnce(_ core: inout SynchronizerCore, reply event: (MonotonicInstant) throws -> SynchronizerCore.Event, clockError: Duration? = nil)
        rethrows -> MonotonicInstant
    {
        var now = core.poller(of: 0).nextPoll
        while true {
            switch core.nextAction(at: now) {
            case .poll(let source):
                #expect(source == 0)
                _ = core.handle(try event(now), at: now, clockError: clockError)
                return now
            case .wait(let until):
                guard let until, until > now else {
                    Issue.record("nothing due")
                    return now
                }
                now = until
            case .resolve(let source):
                _ = core.handle(.resolved(source: source), at: now)
                now = core.poller(of: 0).nextPoll
            case .remove, .resynchronize, .fallBack:
                continue
            }
        }
    }

    static func failure(at _: MonotonicInstant) -> SynchronizerCore.Event {
        .failed(source: 0, outcome: .failure, refusal: nil, error: "timed out")
    }

    func sample(at instant: MonotonicInstant) throws -> SynchronizerCore.Event {
        .samples(source: 0, [try Fixture.exchange("a", offset: 5 * Fixture.second, at: instant)])
    }

    /// The next poll's reason and its wait from `now`.
    func next(_ core: SynchronizerCore, at now: MonotonicInstant) -> (PollReason?, Duration?) {
        let next = core.diagnostics(view, at: now).nextPoll
        return (next?.reason, next?.wait)
    }

    @Test func theFirstPollsAreTheBurst() throws {
        var core = SynchronizerCore(sources: ["a"], start: start)
        #expect(next(core, at: start) == (.burst, .zero))
        let polled = try Self.pollOnce(&core, reply: sample)
        #expect(next(core, at: polled) == (.burst, .seconds(2)))
        // After the burst a resynchronization starts another: due at once, then at burst spacing.
        for _ in 0..<4 { try Self.pollOnce(&core, reply: sample) }
        let steady = core.poller(of: 0).nextPoll
        #expect(next(core, at: steady).0 == .backoff)
        let trigger = steady.advanced(by: .seconds(-10))
        _ = core.handle(.trigger(reason: "network changed"), at: trigger)
        #expect(next(core, at: trigger) == (.burst, .zero))
        let restarted = try Self.pollOnce(&core, reply: sample)
        #expect(next(core, at: restarted) == (.burst, .seconds(2)))
    }

    @Test func aSampleAboveTheTargetErrorShortensTheIntervalForIt() throws {
        var core = SynchronizerCore(sources: ["a"], configuration: .init(poll: PollPolicy(targetError: .milliseconds(100))), start: start)
        // After the burst, an error well within the target lets the interval grow.
        for _ in 0..<4 { try Self.pollOnce(&core, reply: sample, clockError: .milliseconds(10)) }
        let grown = try Self.pollOnce(&core, reply: sample, clockError: .milliseconds(10))
        #expect(next(core, at: grown) == (.targetError, .seconds(128)))
        let polled = try Self.pollOnce(&core, reply: sample, clockError: .milliseconds(200))
        #expect(next(core, at: polled) == (.targetError, .seconds(64)))
    }

    @Test func failuresAfterTheBurstBackOffToTheMaximum() {
        var core = SynchronizerCore(sources: ["a"], configuration: .init(unreachableAfter: 100), start: start)
        for _ in 0..<4 { Self.pollOnce(&core, reply: Self.failure(at:)) }
        let polled = Self.pollOnce(&core, reply: Self.failure(at:))
        #expect(next(core, at: polled) == (.backoff, .seconds(128)))
        for _ in 0..<3 { Self.pollOnce(&core, reply: Self.failure(at:)) }
        let last = Self.pollOnce(&core, reply: Self.failure(at:))
        #expect(next(core, at: last) == (.maximumInterval, .seconds(1024)))
    }

    @Test func aRetryAfterLongerThanTheBackoffIsTheServers() {
        var core = SynchronizerCore(sources: ["a"], start: start)
        let polled = Self.pollOnce(&core) { _ in .failed(source: 0, outcome: .retryAfter(.seconds(600)), refusal: "HTTP 429", error: "429") }
        #expect(next(core, at: polled) == (.retryAfter, .seconds(600)))
        // A restarted burst still waits for it.
        _ = core.handle(.trigger(reason: "foreground"), at: polled.advanced(by: .seconds(10)))
        #expect(next(core, at: polled).0 == .retryAfter)
    }

    @Test func aRateKissSlowsDown() {
        var core = SynchronizerCore(sources: ["a"], start: start)
        let polled = Self.pollOnce(&core) { _ in .failed(source: 0, outcome: .slowDown(interval: nil), refusal: "RATE", error: "RATE") }
        #expect(next(core, at: polled) == (.slowDown, .seconds(128)))
    }

    @Test func aSpentBudgetDelaysADuePoll() throws {
        var core = SynchronizerCore(sources: ["a"], configuration: .init(requestsPerHour: 1, unreachableAfter: 100), start: start)
        // The budget holds eight requests: the burst and four steady polls spend them.
        for _ in 0..<8 { Self.pollOnce(&core, reply: Self.failure(at:)) }
        let due = core.poller(of: 0).nextPoll
        #expect(next(core, at: due).0 == .maximumInterval)
        guard case .wait(let until?) = core.nextAction(at: due) else {
            Issue.record("the poll went out")
            return
        }
        #expect(until > due)
        #expect(next(core, at: due) == (.budget, due.duration(to: until)))
    }

    @Test func aResolvedNameIsPolledAtTheLongestInterval() {
        var core = SynchronizerCore(sources: ["a"], configuration: .init(unreachableAfter: 2), start: start)
        Self.pollOnce(&core, reply: Self.failure(at:))
        let polled = Self.pollOnce(&core, reply: Self.failure(at:))
        #expect(core.nextAction(at: polled.advanced(by: .seconds(2))) == .resolve(source: 0))
        let resolved = polled.advanced(by: .seconds(3))
        _ = core.handle(.resolved(source: 0), at: resolved)
        #expect(next(core, at: resolved) == (.resolve, .seconds(1024)))
    }

    @Test func withoutATargetSamplesBackOffToTheMaximum() throws {
        var core = SynchronizerCore(sources: ["a"], start: start)
        for _ in 0..<4 { try Self.pollOnce(&core, reply: sample) }
        #expect(next(core, at: core.poller(of: 0).nextPoll) == (.backoff, .zero))
        for _ in 0..<4 { try Self.pollOnce(&core, reply: sample) }
        let last = try Self.pollOnce(&core, reply: sample)
        #expect(next(core, at: last) == (.maximumInterval, .seconds(1024)))
    }

    @Test func noPollIsDueWhileNotPollingOrAwaitingTheReply() {
        var core = SynchronizerCore(sources: ["a"], start: start)
        #expect(core.diagnostics(view, at: start, polling: false).nextPoll == nil)
        #expect(core.nextAction(at: start) == .poll(source: 0))
        #expect(core.diagnostics(view, at: start).nextPoll == nil)
        #expect(core.diagnostics(view, at: start).sources.first?.nextPollCause == nil)
    }
}
