import Testing
import TimeSync
import TimeSyncFixtures

/// Fallback sources, sans I/O: polled only when the main sources have been silent for
/// `fallbackAfter` (or at once when every main source's poll failed, or on an activation where
/// HTTPS wakes the network), standing by again once one of them answers.
@Suite struct SynchronizerCoreFallbackTests {
    let start = MonotonicInstant(nanoseconds: 1_000 * Fixture.second)
    let configuration = SynchronizerCore.Configuration(fallbackAfter: .seconds(5))

    func at(_ seconds: Double) -> MonotonicInstant { Fixture.at(seconds, after: start) }

    func sample(_ source: String, at instant: MonotonicInstant) throws -> OffsetSample {
        try Fixture.exchange(source, offset: 5 * Fixture.second, at: instant)
    }

    /// Runs the core for `duration`; `answers(source, now)` says whether a poll brings a sample. A
    /// poll that brings none fails `failAfter` later (a silent server: at the measurement's deadline;
    /// zero: the network said no at once); other sources are polled meanwhile.
    /// - Returns: When each source was polled, and the fallback actions seen.
    func run(
        _ core: inout SynchronizerCore, until end: MonotonicInstant, from begin: MonotonicInstant? = nil,
        failAfter: Duration = .zero, answers: (Int, MonotonicInstant) -> Bool
    ) throws -> (polls: [[MonotonicInstant]], fallbacks: [(MonotonicInstant, [Int])], events: [TimeSynchronizerEvent]) {
        var polls = Array(repeating: [MonotonicInstant](), count: core.sourceCount)
        var fallbacks: [(MonotonicInstant, [Int])] = []
        var events: [TimeSynchronizerEvent] = []
        var failing: [(at: MonotonicInstant, source: Int)] = []
        var now = begin ?? start
        while now < end {
            for failure in failing where failure.at <= now {
                events += core.handle(.failed(source: failure.source, outcome: .failure, refusal: nil, error: "timeout"), at: failure.at)
            }
            failing.removeAll { $0.at <= now }
            switch core.nextAction(at: now) {
            case .poll(let source):
                polls[source].append(now)
                if answers(source, now) {
                    events += core.handle(.samples(source: source, [try sample(core.name(of: source), at: now)]), at: now)
                } else {
                    failing.append((now.advanced(by: failAfter), source))
                }
            case .fallBack(let sources):
                fallbacks.append((now, sources))
            case .resolve(let source):
                _ = core.handle(.resolved(source: source), at: now)
            case .remove, .resynchronize:
                break
            case .wait(let until):
                let next = ([until].compactMap { $0 } + failing.map(\.at)).min()
                guard let next else { return (polls, fallbacks, events) }
                now = min(next, end)
            }
        }
        return (polls, fallbacks, events)
    }

    @Test func silentMainSourcesBringTheFallbackInAfterItsDelayAndNotBefore() throws {
        var core = SynchronizerCore(sources: ["ntp-a", "ntp-b"], fallbackSources: ["https-a", "https-b"], configuration: configuration, start: start)
        #expect(core.isStandingBy(2) && core.isStandingBy(3))
        // Silent: each request fails at its 5 s deadline.
        let run = try run(&core, until: at(60), failAfter: .seconds(5)) { source, _ in source >= 2 }
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
        // UDP blocked for the first 30 s (each request fails at its 5 s deadline), then open.
        var run = try run(&core, until: at(120), failAfter: .seconds(5)) { source, now in source == 1 || now >= at(30) }
        #expect(run.fallbacks.map(\.0) == [at(5)])
        let mainAnswered = try #require(run.polls[0].first { $0 >= at(30) })
        #expect(run.polls[1].allSatisfy { $0 <= mainAnswered }, "no fallback request after the main source answered")
        #expect(core.isStandingBy(1))
        // The network changes and UDP is blocked again: after the trigger, the same delay.
        _ = core.handle(.trigger(reason: "network changed"), at: at(120))
        run = try self.run(&core, until: at(200), from: at(120), failAfter: .seconds(5)) { source, _ in source == 1 }
        #expect(run.fallbacks.map(\.0) == [at(125)])
        #expect(run.polls[1].first == at(125))
    }

    @Test func silenceIsReportedOnlyOnceTheFallbackFailedToo() throws {
        var core = SynchronizerCore(sources: ["ntp-a"], fallbackSources: ["https-a"], configuration: configuration, start: start)
        let run = try run(&core, until: at(60)) { _, _ in false }
        let silence = run.events.enumerated().compactMap { index, event -> (Int, [String: String])? in
            if case .noSourceAnswered(let errors) = event { return (index, errors) }
            return nil
        }
        #expect(silence.count == 1)
        #expect(silence.first.map { Set($0.1.keys) } == ["ntp-a", "https-a"])
        let fallbackFailed = run.events.firstIndex { $0 == .failed(source: "https-a", error: "timeout") }
        #expect(fallbackFailed.map { $0 < silence[0].0 } == true, "the silence comes after the fallback's failure")
    }

    /// A main source whose poll failed at once (no route, the network refused) brings the fallback in
    /// at once: waiting out the delay would only wait for an answer that cannot come. A main source
    /// still being measured holds it back until the delay.
    @Test func mainSourcesThatFailAtOnceBringTheFallbackInAtOnce() throws {
        var core = SynchronizerCore(sources: ["ntp-a", "ntp-b"], fallbackSources: ["https-a"], configuration: configuration, start: start)
        let run = try run(&core, until: at(60)) { source, _ in source == 2 }
        #expect(run.fallbacks.map(\.0) == [at(0)])
        #expect(run.polls[2].first == at(0))
        #expect(core.fallbackReason.hasPrefix("every other source's last poll brought no usable reply"), "\(core.fallbackReason)")

        var pending = SynchronizerCore(sources: ["ntp-a", "ntp-b"], fallbackSources: ["https-a"], configuration: configuration, start: start)
        #expect(pending.nextAction(at: start) == .poll(source: 0))
        #expect(pending.nextAction(at: start) == .poll(source: 1))
        _ = pending.handle(.failed(source: 0, outcome: .failure, refusal: nil, error: "unreachable"), at: start)
        #expect(pending.nextAction(at: start) != .fallBack(sources: [2]), "ntp-b is still being measured")
        // A refusal is an answer: the path works, and the fallback keeps to its delay.
        _ = pending.handle(.failed(source: 1, outcome: .slowDown(interval: nil), refusal: "RATE", error: "RATE"), at: at(1))
        #expect(pending.nextAction(at: at(1)) != .fallBack(sources: [2]))
        #expect(pending.nextAction(at: at(5)) == .fallBack(sources: [2]))
    }

    /// Where HTTPS wakes the network (an idle cellular radio), the fallback joins at the start and on
    /// an activation at once; other triggers keep the delay, and elsewhere an activation does too.
    @Test func anActivationBringsTheFallbackInAtOnceWhereHTTPSWakesTheNetwork() throws {
        let waking = SynchronizerCore.Configuration(fallbackAfter: .seconds(5), fallbackOnActivation: true)
        var core = SynchronizerCore(sources: ["ntp-a"], fallbackSources: ["https-a"], configuration: waking, start: start)
        #expect(core.nextAction(at: start) == .fallBack(sources: [1]), "the start is an activation")
        #expect(core.fallbackReason.hasPrefix("the app became active"), "\(core.fallbackReason)")
        var run = try run(&core, until: at(100)) { _, _ in true }
        #expect(core.isStandingBy(1), "the main source answered: the fallback stands by again")
        _ = core.handle(.trigger(reason: "the app entered the foreground", activation: true), at: at(100))
        #expect(core.nextAction(at: at(100)) == .fallBack(sources: [1]))
        run = try self.run(&core, until: at(200), from: at(100)) { _, _ in true }
        #expect(core.isStandingBy(1))
        _ = core.handle(.trigger(reason: "the network path changed"), at: at(200))
        #expect(core.nextAction(at: at(200)) != .fallBack(sources: [1]))
        #expect(core.nextAction(at: at(205)) == .fallBack(sources: [1]))
        #expect(core.fallbackReason == "no other source answered within 5.000 s")

        var elsewhere = SynchronizerCore(sources: ["ntp-a"], fallbackSources: ["https-a"], configuration: configuration, start: start)
        #expect(elsewhere.nextAction(at: start) == .poll(source: 0))
        _ = elsewhere.handle(.samples(source: 0, [try sample("ntp-a", at: start)]), at: start)
        _ = elsewhere.handle(.trigger(reason: "the app entered the foreground", activation: true), at: at(10))
        #expect(elsewhere.nextAction(at: at(10)) != .fallBack(sources: [1]))
        _ = run
    }
}
