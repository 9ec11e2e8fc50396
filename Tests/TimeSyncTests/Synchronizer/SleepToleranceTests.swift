import Testing
@testable import TimeSync
import TimeSyncFixtures
import TimeSyncTesting

/// Waits that may end late ask for a tenth of their length as leeway (at most a minute), so the
/// system can group wake-ups; exchange deadlines ask for none.
@Suite struct SleepToleranceTests {
    @Test func aTenthOfTheWaitAtMostAMinute() {
        #expect(SleepTolerance.forWait(.seconds(64)) == .milliseconds(6400))
        #expect(SleepTolerance.forWait(.seconds(2)) == .milliseconds(200))
        #expect(SleepTolerance.forWait(.seconds(36 * 3600)) == .seconds(60))
        #expect(SleepTolerance.forWait(.zero) == .zero)
        #expect(SleepTolerance.forWait(.seconds(-5)) == .zero)
    }

    /// A time base that records the leeway each sleep asks for, over a hand-moved one.
    final class RecordingTimeBase: TimeBase {
        let base: ManualTimeBase
        let requests = Locked<[(wait: Duration, tolerance: Duration)]>([])
        init(_ base: ManualTimeBase) { self.base = base }
        func monotonicNow() -> MonotonicInstant { base.monotonicNow() }
        func wallNow() -> UnixTime { base.wallNow() }
        var bootSessionID: String? { base.bootSessionID }
        func sleep(until deadline: MonotonicInstant) async throws {
            try await sleep(until: deadline, tolerance: .zero)
        }
        func sleep(until deadline: MonotonicInstant, tolerance: Duration) async throws {
            let wait = base.monotonicNow().duration(to: deadline)
            requests.withLock { $0.append((wait, tolerance)) }
            try await base.sleep(until: deadline)
        }
    }

    @Test func theSynchronizersWaitForTheNextPollAsksForLeeway() async throws {
        let base = ManualTimeBase()
        let recording = RecordingTimeBase(base)
        let sources = ["a", "b", "c"].map { SimulatedTimeSource($0, offset: 7 * Fixture.second, base: base) }
        let sync = try TimeSynchronizer(sources: sources, timeBase: recording)
        sync.start()
        await TimeSynchronizerTests.run(base, sync, for: .seconds(600))
        await sync.stop()
        let requests = recording.requests.withLock { $0 }
        let polls = requests.filter { $0.wait >= .seconds(16) }
        #expect(!polls.isEmpty, "no wait of 16 s or more in \(requests.map(\.wait))")
        for request in polls {
            #expect(request.tolerance == SleepTolerance.forWait(request.wait), "wait \(request.wait), tolerance \(request.tolerance)")
        }
    }

    @Test func anExchangesDeadlineAsksForNone() async throws {
        let base = ManualTimeBase()
        let recording = RecordingTimeBase(base)
        let timer = DeadlineTimer(at: .after(.seconds(5), on: recording), on: recording) {}
        #expect(await base.waitForSleepers(1))
        timer.cancel()
        let requests = recording.requests.withLock { $0 }
        #expect(requests.count == 1)
        #expect(requests.first?.wait == .seconds(5))
        #expect(requests.first?.tolerance == .zero)
    }
}
