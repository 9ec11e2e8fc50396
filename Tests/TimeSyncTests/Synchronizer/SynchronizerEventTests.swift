import Testing
import TimeSync
import TimeSyncFixtures
import TimeSyncTesting

/// One event stream: what the clock under a synchronizer reports reaches the synchronizer's events.
@Suite struct SynchronizerEventTests {
    @Test func theClocksNewsArrivesAsTheSynchronizersEvents() async throws {
        let base = ManualTimeBase()
        let sync = try TimeSynchronizer(sources: [ScriptedTimeSource("a", offset: 0, base: base).source], timeBase: base)
        let stream = sync.events()

        sync.clock.calibrate(with: try Fixture.exchange("a", offset: 0, at: base.monotonicNow()))
        base.jumpWall(by: .seconds(3600))
        sync.wallClockMayHaveChanged()
        await sync.stop()  // ends the stream
        var events: [TimeSynchronizerEvent] = []
        for await event in stream { events.append(event) }

        #expect(events.first == .statusChanged(from: .unsynchronized, to: .synchronized), "\(events)")
        let jump = try #require(events.firstIndex(of: .wallClockChanged(by: .seconds(3600))), "\(events)")
        // The jump restarts polling with a burst, and says why, after the jump itself.
        #expect(events[(jump + 1)...].contains { if case .resynchronizing(let reason) = $0 { reason.contains("wall clock") } else { false } })
    }
}

/// A started synchronizer follows the system's hints by itself and says what it follows.
@Suite struct SystemEventFollowingTests {
    @Test func diagnosticsSayWhatARunningSynchronizerFollows() async throws {
        let base = ManualTimeBase()
        let sync = try TimeSynchronizer(sources: [ScriptedTimeSource("a", offset: 0, base: base).source], timeBase: base)
        #expect(sync.diagnostics().observing.isEmpty, "not running: nothing followed")
        sync.start()
        let observing = sync.diagnostics().observing
        #if canImport(Darwin)
        #expect(observing.contains { $0.contains("NSSystemClockDidChange") }, "\(observing)")
        #else
        #expect(observing == [
            "no system hints: this platform announces neither wall-clock nor network changes; run ServerClock.monitorWallClock(every:) to hear of the first"
        ])
        #endif
        await sync.stop()
        #expect(sync.diagnostics().observing.isEmpty, "stopped: nothing followed")

        var quiet = TimeSynchronizer.Configuration()
        quiet.followsSystemEvents = false
        let manual = try TimeSynchronizer(sources: [ScriptedTimeSource("b", offset: 0, base: base).source], configuration: quiet, timeBase: base)
        manual.start()
        #expect(manual.diagnostics().observing.isEmpty, "the app forwards the hints itself")
        await manual.stop()
    }
}
