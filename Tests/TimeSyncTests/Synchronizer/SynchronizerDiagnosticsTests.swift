import Foundation
import Testing
import TimeSync
import TimeSyncFixtures
import TimeSyncTesting

/// What the diagnostics say a synchronizer did: each source's last success and failure, the
/// history, and the value's JSON form.
@Suite struct SynchronizerDiagnosticsTests {
    let start = MonotonicInstant(nanoseconds: 1_000 * Fixture.second)
    let view = SynchronizerCore.ClockView(status: .unsynchronized, selected: [], heard: [], suspects: [], wallShift: 0)

    func at(_ seconds: Double) -> MonotonicInstant { Fixture.at(seconds, after: start) }

    @Test func aSourceKeepsItsLastSuccessAndItsLastFailure() throws {
        var core = SynchronizerCore(sources: ["a", "b"], start: start)
        #expect(core.nextAction(at: start) == .poll(source: 0))
        #expect(core.nextAction(at: start) == .poll(source: 1))
        let samples = [try Fixture.exchange("a", offset: 0, at: start), try Fixture.exchange("a", offset: 0, at: at(0.1))]
        _ = core.handle(.samples(source: 0, samples), at: at(0.2))
        _ = core.handle(.failed(source: 1, outcome: .failure, refusal: nil, error: "timed out"), at: at(5))
        var sources = core.diagnostics(view, at: at(5)).sources
        #expect(sources.map(\.source) == ["a", "b"])
        #expect(sources[0].lastSuccess == .init(time: at(0.2), roundTrip: .milliseconds(20), samples: 2))
        #expect(sources[0].lastFailure == nil)
        #expect(sources[1].lastSuccess == nil)
        #expect(sources[1].lastFailure == .init(time: at(5), reason: "timed out"))
        #expect(sources[1].polls == 1)
        #expect(sources[1].reachability == 0)

        // A failure of `a` after its success: both are kept, each with its own instant.
        #expect(core.nextAction(at: at(2.2)) == .poll(source: 0))
        _ = core.handle(.failed(source: 0, outcome: .slowDown(interval: .seconds(8)), refusal: "RATE", error: "kiss RATE"), at: at(2.3))
        sources = core.diagnostics(view, at: at(2.3)).sources
        #expect(sources[0].lastSuccess?.time == at(0.2))
        #expect(sources[0].lastFailure == .init(time: at(2.3), reason: "kiss RATE"))
        #expect(sources[0].state == .kissed)
        #expect(sources[0].reachability == 0b10)
    }

    /// Offline, the clock reads the device's time: the summary says so, and why (each source's last
    /// failure, or that none has answered yet), in one line.
    @Test func theSummarySaysWhyTheClockIsUnsynchronized() {
        var core = SynchronizerCore(sources: ["a", "b"], start: start)
        #expect(core.diagnostics(view, at: start).summary == "unsynchronized: the clock reads this device's own time; none of 2 sources has answered yet")
        #expect(core.nextAction(at: start) == .poll(source: 0))
        #expect(core.nextAction(at: start) == .poll(source: 1))
        let refused = URLError(.cannotConnectToHost, userInfo: [NSLocalizedDescriptionKey: "Could not connect to the server."])
        _ = core.handle(.failed(source: 0, outcome: .failure, refusal: nil, error: ErrorMessage.of(refused)), at: at(1))
        let summary = core.diagnostics(view, at: at(1)).summary
        #expect(summary == "unsynchronized: the clock reads this device's own time; no source answered (a: Could not connect to the server. [URLError -1004]; 1 not answered yet)")
        #expect(!summary.contains("Error Domain"), "no raw NSError dump")
        let synchronized = SynchronizerCore.ClockView(status: .synchronized, selected: ["b"], heard: ["b"], suspects: [], wallShift: 0)
        #expect(core.diagnostics(synchronized, at: at(1)).summary == "synchronized by b")
    }

    @Test func theHistoryKeepsTheNewestEventsUpToItsLength() {
        var core = SynchronizerCore(sources: ["a"], configuration: .init(unreachableAfter: 1000), start: start)
        let length = SynchronizerDiagnostics.historyLength
        #expect(length == 32)
        var now = start
        for poll in 0..<(length + 8) {
            guard case .poll = core.nextAction(at: now) else {
                Issue.record("no poll at \(now)")
                return
            }
            _ = core.handle(.failed(source: 0, outcome: .failure, refusal: nil, error: "error \(poll)"), at: now)
            now = core.poller(of: 0).nextPoll
        }
        let history = core.diagnostics(view, at: now).history
        // Each failure is one event; the first also brought "no source answered".
        #expect(history.count == length)
        #expect(history.last?.kind == .event(.failed(source: "a", error: "error \(length + 7)")))
        #expect(history.first?.kind == .event(.failed(source: "a", error: "error 8")))
        #expect(history.map(\.time) == history.map(\.time).sorted())
    }

    @Test func theHistoryHasStatusChangesResolvesFallbacksAndTriggers() {
        var core = SynchronizerCore(
            sources: ["a"], fallbackSources: ["https"], configuration: .init(unreachableAfter: 1, fallbackAfter: .seconds(5)),
            start: start)
        core.noteStatus(.unsynchronized, at: start)
        #expect(core.nextAction(at: start) == .poll(source: 0))
        // An unsynchronized server answered: the path works, and the fallback keeps to its delay.
        _ = core.handle(.failed(source: 0, outcome: .unsynchronized, refusal: nil, error: "refused"), at: at(1))
        #expect(core.nextAction(at: at(1)) == .resolve(source: 0))
        _ = core.handle(.resolved(source: 0), at: at(1))
        #expect(core.nextAction(at: at(5)) == .fallBack(sources: [1]))
        core.noteStatus(.provisional, at: at(6))
        core.noteStatus(.provisional, at: at(7))
        _ = core.handle(.trigger(reason: "foreground"), at: at(8))
        let history = core.diagnostics(view, at: at(8)).history
        #expect(history.map(\.kind) == [
            .event(.failed(source: "a", error: "refused")), .resolved(source: "a"), .event(.fallingBack(sources: ["https"], reason: "no other source answered within 5.000 s")),
            .statusChanged(.provisional), .event(.resynchronizing(reason: "foreground")),
        ])
        #expect(history.map(\.time) == [at(1), at(1), at(5), at(6), at(8)])
    }

    @Test func theDiagnosticsSurviveAJSONRoundTrip() throws {
        var core = SynchronizerCore(sources: ["a", "b"], start: start)
        _ = core.nextAction(at: start)
        _ = core.nextAction(at: start)
        _ = core.handle(.samples(source: 0, [try Fixture.exchange("a", offset: 0, at: start)]), at: at(0.1))
        _ = core.handle(.failed(source: 1, outcome: .slowDown(interval: .seconds(8)), refusal: "RATE", error: "kiss RATE"), at: at(0.2))
        core.noteStatus(.unsynchronized, at: at(0.3))
        core.noteStatus(.provisional, at: at(0.3))
        var view = self.view
        view.calibrationAge = .milliseconds(1500)
        view.sampleCounts = ["a": 1]
        let diagnostics = core.diagnostics(view, at: at(1))
        #expect(diagnostics.calibrationAge == .milliseconds(1500))
        #expect(diagnostics.sources.map(\.clockSamples) == [1, 0])
        #expect(diagnostics.nextPoll == .init(source: "a", time: at(2.1), wait: .milliseconds(1100), reason: .burst))
        #expect(diagnostics.history.count == 3)
        let data = try JSONEncoder().encode(diagnostics)
        #expect(try JSONDecoder().decode(SynchronizerDiagnostics.self, from: data) == diagnostics)
    }

    @Test func aSynchronizerOnAHandMovedClockExplainsItself() async throws {
        let base = ManualTimeBase()
        let sources = ["a", "b", "c"].map { SimulatedTimeSource($0, offset: 7 * Fixture.second, base: base) }
        sources[2].failing = true
        let sync = try TimeSynchronizer(sources: sources, timeBase: base)
        #expect(sync.diagnostics().nextPoll == nil)
        sync.start()
        await TimeSynchronizerTests.run(base, sync, for: .seconds(30))
        let diagnostics = sync.diagnostics()
        #expect(diagnostics.status == sync.clock.reading().status)
        #expect(diagnostics.calibrationAge != nil)
        #expect(diagnostics.sources.map(\.source) == ["a", "b", "c"])
        #expect(diagnostics.sources[0].lastSuccess?.samples == 1)
        #expect(diagnostics.sources[0].clockSamples > 0)
        #expect(diagnostics.sources[2].lastSuccess == nil)
        #expect(diagnostics.sources[2].lastFailure?.reason == "Unreachable()")
        let next = try #require(diagnostics.nextPoll)
        #expect(next.time == diagnostics.sources.compactMap(\.nextPoll).min())
        #expect(next.time == base.monotonicNow().advanced(by: next.wait))
        #expect(diagnostics.history.contains { $0.kind == .event(.measured(source: "a", samples: 1)) })
        #expect(diagnostics.history.contains { $0.kind == .statusChanged(.provisional) })
        await sync.stop()
        #expect(sync.diagnostics().nextPoll == nil)
    }
}

@Suite struct RingBufferTests {
    @Test(arguments: [0, 1, 3, 4, 5, 11])
    func keepsTheNewestInOrder(count: Int) {
        var buffer = RingBuffer<Int>(capacity: 4)
        for value in 0..<count { buffer.append(value) }
        #expect(buffer.elements == Array(max(0, count - 4)..<count))
        #expect(buffer.last == (count == 0 ? nil : count - 1))
    }
}
