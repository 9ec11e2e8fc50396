import Testing
import TimeSync
import TimeSyncFixtures

/// Fallback sources, sans I/O: polled only when the main sources have been silent for
/// `fallbackAfter`, standing by again once one of them answers.
@Suite struct SynchronizerCoreFallbackTests {
    let start = MonotonicInstant(nanoseconds: 1_000 * Fixture.second)
    let configuration = SynchronizerCore.Configuration(fallbackAfter: .seconds(5))

    func at(_ seconds: Double) -> MonotonicInstant { Fixture.at(seconds, after: start) }

    func sample(_ source: String, at instant: MonotonicInstant) throws -> OffsetSample {
        try Fixture.exchange(source, offset: 5 * Fixture.second, at: instant)
    }

    /// Runs the core for `duration`; `answers(source, now)` says whether a poll brings a sample.
    /// - Returns: When each source was polled, and the fallback actions seen.
    func run(
        _ core: inout SynchronizerCore, until end: MonotonicInstant, from begin: MonotonicInstant? = nil,
        answers: (Int, MonotonicInstant) -> Bool
    ) throws -> (polls: [[MonotonicInstant]], fallbacks: [(MonotonicInstant, [Int])], events: [TimeSynchronizerEvent]) {
        var polls = Array(repeating: [MonotonicInstant](), count: core.sourceCount)
        var fallbacks: [(MonotonicInstant, [Int])] = []
        var events: [TimeSynchronizerEvent] = []
        var now = begin ?? start
        while now < end {
            switch core.nextAction(at: now) {
            case .poll(let source):
                polls[source].append(now)
                let event: SynchronizerCore.Event =
                    answers(source, now)
                    ? .samples(source: source, [try sample(core.name(of: source), at: now)])
                    : .failed(source: source, outcome: .failure, refusal: nil, error: "timeout")
                events += core.handle(event, at: now)
            case .fallBack(let sources):
                fallbacks.append((now, sources))
            case .resolve(let source):
                _ = core.handle(.resolved(source: source), at: now)
            case .remove, .resynchronize:
                break
            case .wait(let until):
                guard let until else { return (polls, fallbacks, events) }
                now = min(until, end)
            }
        }
        return (polls, fallbacks, events)
    }

    @Test func silentMainSourcesBringTheFallbackInAfterItsDelayAndNotBefore() throws {
        var core = SynchronizerCore(sources: ["ntp-a", "ntp-b"], fallbackSources: ["https-a", "https-b"], configuration: configuration, start: start)
        #expect(core.isStandingBy(2) && core.isStandingBy(3))
        let run = try run(&core, until: at(60)) { source, _ in source >= 2 }
        #expect(run.fallbacks.count == 1)
        #expect(run.fallbacks.first?.0 == at(5))
        #expect(run.fallbacks.first?.1 == [2, 3])
        #expect(run.polls[2].first == at(5), "no fallback request before the delay")
        #expect(run.polls[3].first == at(5))
        #expect(run.polls[0].count > 1 && run.polls[1].count > 1, "the main sources are still polled")
        #expect(!core.isStandingBy(2))
        #expect(!run.events.contains { if case .noSourceAnswered = $0 { true } else { false } }, "the fallback answered")
    }

    @Test func aMainSourceAnsweringInTimeKeepsTheFallbackStandingBy() throws {
        var core = SynchronizerCore(sources: ["ntp-a", "ntp-b"], fallbackSources: ["https-a"], configuration: configuration, start: start)
        let run = try run(&core, until: at(3600)) { source, _ in source == 1 }
        #expect(run.fallbacks.isEmpty)
        #expect(run.polls[2].isEmpty, "never a fallback request while a main source answers")
        #expect(core.isStandingBy(2))
        let view = SynchronizerCore.ClockView(status: .synchronized, selected: ["ntp-b"], heard: ["ntp-b"], suspects: [], wallShift: 0)
        #expect(core.statuses(view).map(\.state) == [.unreachable, .selected, .standingBy])
    }

    @Test func theFallbackStandsByAgainWhenAMainSourceAnswersAndReturnsAfterATrigger() throws {
        var core = SynchronizerCore(sources: ["ntp-a"], fallbackSources: ["https-a"], configuration: configuration, start: start)
        // UDP blocked for the first 30 s, then open.
        var run = try run(&core, until: at(120)) { source, now in source == 1 || now >= at(30) }
        #expect(run.fallbacks.map(\.0) == [at(5)])
        let mainAnswered = try #require(run.polls[0].first { $0 >= at(30) })
        #expect(run.polls[1].allSatisfy { $0 <= mainAnswered }, "no fallback request after the main source answered")
        #expect(core.isStandingBy(1))
        // The network changes and UDP is blocked again: after the trigger, the same delay.
        _ = core.handle(.trigger(reason: "network changed"), at: at(120))
        run = try self.run(&core, until: at(200), from: at(120)) { source, _ in source == 1 }
        #expect(run.fallbacks.map(\.0) == [at(125)])
        #expect(run.polls[1].first == at(125))
    }

    @Test func silenceIsReportedOnlyOnceTheFallbackFailedToo() throws {
        var core = SynchronizerCore(sources: ["ntp-a"], fallbackSources: ["https-a"], configuration: configuration, start: start)
        let early = try run(&core, until: at(4.9)) { _, _ in false }
        #expect(early.polls[0].count >= 1)
        #expect(!early.events.contains { if case .noSourceAnswered = $0 { true } else { false } }, "the fallback is still to come")
        let later = try run(&core, until: at(60), from: at(4.9)) { _, _ in false }
        let silence = later.events.compactMap { event -> [String: String]? in
            if case .noSourceAnswered(let errors) = event { return errors }
            return nil
        }
        #expect(silence.count == 1)
        #expect(silence.first.map { Set($0.keys) } == ["ntp-a", "https-a"])
    }
}
