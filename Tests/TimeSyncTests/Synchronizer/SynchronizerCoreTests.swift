import Testing
import TimeSync
import TimeSyncFixtures

/// The synchronizer's polling, sans I/O: instants passed in, replies made up, no tasks and no sleeps.
@Suite struct SynchronizerCoreTests {
    let start = MonotonicInstant(nanoseconds: 1_000 * Fixture.second)

    func at(_ seconds: Double) -> MonotonicInstant { Fixture.at(seconds, after: start) }

    func sample(_ source: String, at instant: MonotonicInstant, offset: Int64 = 5 * Fixture.second) throws -> OffsetSample {
        try Fixture.exchange(source, offset: offset, at: instant)
    }

    /// Every action until the core waits, at one instant.
    static func actions(_ core: inout SynchronizerCore, at now: MonotonicInstant) -> [SynchronizerCore.Action] {
        var actions: [SynchronizerCore.Action] = []
        while true {
            let action = core.nextAction(at: now)
            actions.append(action)
            if case .wait = action { return actions }
        }
    }

    /// Runs the core for `duration`, every poll answered at once by `reply` (nil: a sample), moving
    /// from one due instant to the next.
    /// - Returns: When each source was polled.
    static func simulate(
        _ core: inout SynchronizerCore, from start: MonotonicInstant, for duration: Duration,
        reply: (Int, MonotonicInstant) throws -> SynchronizerCore.Event
    ) rethrows -> [[MonotonicInstant]] {
        var polls = Array(repeating: [MonotonicInstant](), count: core.sourceCount)
        var now = start
        let end = start.advanced(by: duration)
        while now < end {
            switch core.nextAction(at: now) {
            case .poll(let source):
                polls[source].append(now)
                _ = core.handle(try reply(source, now), at: now)
            case .resolve(let source):
                _ = core.handle(.resolved(source: source), at: now)
            case .remove, .resynchronize, .fallBack:
                break
            case .wait(let until):
                guard let until else { return polls }
                now = until
            }
        }
        return polls
    }

    @Test func everySourceIsPolledAtOnceThenAgainWhenItsReplyIsIn() throws {
        var core = SynchronizerCore(sources: ["a", "b", "c"], start: start)
        #expect(Self.actions(&core, at: start) == [.poll(source: 0), .poll(source: 1), .poll(source: 2), .wait(until: nil)])
        // A source is not polled again while its request is out; its reply schedules the next poll
        // one burst interval (2 s) later.
        _ = core.handle(.samples(source: 1, [try sample("b", at: start)]), at: at(0.1))
        #expect(core.nextAction(at: at(0.1)) == .wait(until: at(2.1)))
        _ = core.handle(.samples(source: 2, [try sample("c", at: start)]), at: at(0.3))
        _ = core.handle(.samples(source: 0, [try sample("a", at: start)]), at: at(0.5))
        #expect(core.nextAction(at: at(2.1)) == .poll(source: 1))
        // The source due longest goes first.
        #expect(Self.actions(&core, at: at(3)) == [.poll(source: 2), .poll(source: 0), .wait(until: nil)])
    }

    @Test func theBudgetCapsRequestsOverEverySource() {
        var core = SynchronizerCore(sources: ["a", "b", "c"], configuration: .init(requestsPerHour: 6), start: start)
        let polls = Self.simulate(&core, from: start, for: .seconds(4 * 3600)) { source, _ in .failed(source: source, outcome: .failure, refusal: nil, error: "timeout") }
        let total = polls.map(\.count).reduce(0, +)
        // A full bucket of max(8, 3 sources × a burst of 4) = 12, then 6 an hour.
        #expect(total <= 12 + 4 * 6, "\(total) requests in 4 hours")
        #expect(total >= 12 + 4 * 6 - 4, "\(total) requests in 4 hours")
        // No source starves: the tokens go round.
        #expect(polls.allSatisfy { $0.count >= total / 3 - 3 }, "\(polls.map(\.count))")
    }

    @Test func failuresBackOff() {
        var core = SynchronizerCore(sources: ["down"], start: start)
        let polls = Self.simulate(&core, from: start, for: .seconds(1200)) { source, _ in .failed(source: source, outcome: .failure, refusal: nil, error: "timeout") }
        let gaps = zip(polls[0], polls[0].dropFirst()).map { $0.duration(to: $1) }
        // The burst (4 polls, 2 s apart), then 64 s doubling.
        #expect(Array(gaps.prefix(6)) == [.seconds(2), .seconds(2), .seconds(2), .seconds(64), .seconds(128), .seconds(256)])
        #expect(core.poller(of: 0).reachability == 0)
    }

    @Test func eightSilentPollsAskForTheNameToBeResolvedAgain() {
        var core = SynchronizerCore(sources: ["down"], start: start)
        var now = start
        for _ in 0..<8 {
            guard case .poll = core.nextAction(at: now) else {
                Issue.record("expected a poll")
                return
            }
            _ = core.handle(.failed(source: 0, outcome: .failure, refusal: nil, error: "timeout"), at: now)
            now = core.poller(of: 0).nextPoll
        }
        #expect(core.nextAction(at: now) == .resolve(source: 0))
        _ = core.handle(.resolved(source: 0), at: now)
        // Polling goes on at the longest interval.
        #expect(core.nextAction(at: now) == .wait(until: now.advanced(by: .seconds(1024))))
    }

    @Test func aRateKissSlowsTheSourceAndADenyRemovesIt() throws {
        var core = SynchronizerCore(sources: ["rate", "deny", "ok"], start: start)
        _ = Self.actions(&core, at: start)
        let rate = core.handle(.failed(source: 0, outcome: .slowDown(interval: .seconds(8)), refusal: "RATE", error: "kiss RATE"), at: start)
        #expect(rate == [.kissed(source: "rate", stopped: false)])
        // RATE ends the burst and doubles the interval from the minimum: 128 s, not the burst's 2 s.
        #expect(core.poller(of: 0).nextPoll == at(128))
        let deny = core.handle(.failed(source: 1, outcome: .stop, refusal: "DENY", error: "kiss DENY"), at: start)
        #expect(deny == [.kissed(source: "deny", stopped: true)])
        _ = core.handle(.samples(source: 2, [try sample("ok", at: start)]), at: start)
        #expect(core.nextAction(at: at(1)) == .remove(source: 1))
        let states = core.statuses(.init(status: .provisional, selected: ["ok"], heard: ["ok"], suspects: [], wallShift: 0))
        #expect(states.map(\.state) == [.kissed, .kissed, .selected])
        #expect(states.map(\.kissCode) == ["RATE", "DENY", nil])
        // Removed once, never polled again, whatever restarts polling; the source that sent RATE is
        // polled once, with no burst: its next poll is minutes away.
        _ = core.handle(.trigger(reason: "foreground"), at: at(1))
        #expect(Self.actions(&core, at: at(1)) == [.poll(source: 0), .poll(source: 2), .wait(until: nil)])
        _ = core.handle(.samples(source: 0, [try sample("rate", at: at(1))]), at: at(1))
        #expect(core.poller(of: 0).nextPoll == at(257))
    }

    @Test func aRetryAfterHoldsThroughATrigger() {
        var core = SynchronizerCore(sources: ["busy"], start: start)
        _ = Self.actions(&core, at: start)
        let events = core.handle(.failed(source: 0, outcome: .retryAfter(.seconds(3600)), refusal: "HTTP 429", error: "429"), at: start)
        #expect(events == [.kissed(source: "busy", stopped: false), .noSourceAnswered(errors: ["busy": "429"])])
        #expect(core.handle(.trigger(reason: "foreground"), at: at(60)) == [.resynchronizing(reason: "foreground")])
        #expect(core.nextAction(at: at(60)) == .wait(until: at(3600)))
        #expect(core.statuses(.init(status: .unsynchronized, selected: [], heard: [], suspects: [], wallShift: 0)).first?.kissCode == "Retry-After")
    }

    @Test func aTriggerStartsABurstOnEverySource() throws {
        var core = SynchronizerCore(sources: ["a", "b"], start: start)
        // Past the burst: the next polls are a minute or more away.
        let polls = try Self.simulate(&core, from: start, for: .seconds(600)) { source, now in
            .samples(source: source, [try sample(["a", "b"][source], at: now)])
        }
        // A burst of 4 at 2 s, then 64, 128 and 256 s.
        #expect(polls.map(\.count) == [7, 7])
        let now = at(601)
        #expect(core.handle(.trigger(reason: "the network path changed"), at: now) == [.resynchronizing(reason: "the network path changed")])
        #expect(Self.actions(&core, at: now) == [.poll(source: 0), .poll(source: 1), .wait(until: nil)])
    }

    @Test func aCalibrationTooOldRestartsPollingOncePerMaximumAge() throws {
        var core = SynchronizerCore(sources: ["a"], configuration: .init(maximumCalibrationAge: .seconds(1800)), start: start)
        _ = Self.actions(&core, at: start)
        _ = core.handle(.samples(source: 0, [try sample("a", at: start)]), at: start)
        #expect(core.nextAction(at: at(1), calibrationAge: .seconds(600)) == .wait(until: at(2)))
        #expect(core.nextAction(at: at(1), calibrationAge: .seconds(1801)) == .resynchronize(reason: "the calibration is \(Duration.seconds(1801)) old"))
        // Not again until another maximum age has passed, however old the calibration.
        #expect(core.nextAction(at: at(1000), calibrationAge: .seconds(2800)) == .poll(source: 0))
        _ = core.handle(.failed(source: 0, outcome: .failure, refusal: nil, error: "timeout"), at: at(1000))
        #expect(core.nextAction(at: at(1001), calibrationAge: .seconds(2801)) == .wait(until: at(1002)))
        #expect(core.nextAction(at: at(1801), calibrationAge: .seconds(3601)) == .resynchronize(reason: "the calibration is \(Duration.seconds(3601)) old"))
    }

    @Test func whenNoSourceEverAnsweredItIsSaidOnce() {
        var core = SynchronizerCore(sources: ["a", "b"], start: start)
        _ = Self.actions(&core, at: start)
        #expect(core.handle(.failed(source: 0, outcome: .failure, refusal: nil, error: "timeout a"), at: start) == [.failed(source: "a", error: "timeout a")])
        #expect(
            core.handle(.failed(source: 1, outcome: .unsynchronized, refusal: nil, error: "b is not synchronized"), at: start)
                == [.failed(source: "b", error: "b is not synchronized"), .noSourceAnswered(errors: ["a": "timeout a", "b": "b is not synchronized"])])
        _ = Self.actions(&core, at: at(2))
        #expect(core.handle(.failed(source: 0, outcome: .failure, refusal: nil, error: "timeout a"), at: at(2)) == [.failed(source: "a", error: "timeout a")])
    }

    /// Each state from what the source's polls said and what the clock follows.
    @Test func statusClassification() throws {
        let names = ["selected", "falseticker", "suspect", "unsynchronized", "conflicting", "unreachable", "pending"]
        var core = SynchronizerCore(sources: names, start: start)
        _ = Self.actions(&core, at: start)
        var samples: [String: OffsetSample] = [:]
        for (index, name) in names.enumerated().prefix(3) {
            samples[name] = try sample(name, at: start)
            _ = core.handle(.samples(source: index, [samples[name]!]), at: start)
        }
        _ = core.handle(.failed(source: 3, outcome: .unsynchronized, refusal: nil, error: "leap indicator 3"), at: start)
        _ = core.handle(.failed(source: 4, outcome: .conflicting, refusal: nil, error: "two replies"), at: start)
        // Unreachable once eight polls in a row brought nothing (the rule that also resolves the
        // name again).
        var now = start
        for poll in 1...8 {
            #expect(!core.poller(of: 5).isUnreachable, "poll \(poll)")
            _ = core.handle(.failed(source: 5, outcome: .failure, refusal: nil, error: "timeout"), at: now)
            guard poll < 8 else { break }
            now = core.poller(of: 5).nextPoll
            #expect(Self.actions(&core, at: now).contains(.poll(source: 5)))
        }
        #expect(core.poller(of: 5).isUnreachable)
        #expect(core.nextAction(at: now) == .resolve(source: 5), "the same rule asks for the name again")
        let view = SynchronizerCore.ClockView(
            status: .synchronized, selected: ["selected"], heard: ["selected", "falseticker", "suspect"],
            suspects: [samples["suspect"]!], wallShift: 0)
        let states = core.statuses(view)
        #expect(states.map(\.source) == names)
        #expect(states.map(\.state) == [.selected, .falseticker, .suspect, .unsynchronized, .conflictingReplies, .unreachable, .pending])
        #expect(states[0].wallClockOffset == .nanoseconds(samples["selected"]!.offset.midpoint))
        let sources = core.diagnostics(view, at: now).sources
        #expect(sources[3].lastFailure?.reason == "leap indicator 3")
        #expect(sources[0].reachability == 1 && sources[5].reachability == 0)
        // Without a majority, sources the clock heard are unselected, none selected.
        let noMajority = core.statuses(.init(status: .noMajority, selected: ["selected"], heard: view.heard, suspects: [], wallShift: 0))
        #expect(noMajority.prefix(3).map(\.state) == [.unselected, .unselected, .unselected])
    }

    @Test func aSourcesIdentifierIsNeverGivenToAnother() {
        var core = SynchronizerCore(sources: [], start: start)
        #expect(core.nextAction(at: start) == .wait(until: nil))
        let a = core.addSource("a", at: start)
        let b = core.addSource("b", at: start)
        #expect(core.removeSource(a) == "a")
        #expect(Self.actions(&core, at: start) == [.poll(source: b), .wait(until: nil)])
        let c = core.addSource("c", at: start)
        #expect(c != a && c != b)
        #expect(core.name(of: c) == "c")
        #expect(core.nextAction(at: start) == .poll(source: c))
        // A result for the forgotten source (its measurement was in flight) changes nothing.
        #expect(core.handle(.samples(source: a, []), at: start) == [])
        #expect(core.statuses(.init(status: .unsynchronized, selected: [], heard: [], suspects: [], wallShift: 0)).map(\.source) == ["b", "c"])
    }
}
