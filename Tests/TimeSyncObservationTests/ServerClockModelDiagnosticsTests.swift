#if canImport(Observation)
import Observation
import Testing
import TimeSync
import TimeSyncFixtures
import TimeSyncObservation
import TimeSyncTesting

/// A model made from a synchronizer publishes its diagnostics with each refresh; one made from a
/// clock alone has none.
@MainActor @Suite struct ServerClockModelDiagnosticsTests {
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func theDiagnosticsAreRefreshedWithTheReading() async throws {
        let base = ManualTimeBase()
        let sources = (0..<3).map { ScriptedTimeSource("s\($0)", offset: 5 * Fixture.second, base: base) }
        let sync = try TimeSynchronizer(sources: sources, timeBase: base)
        let model = ServerClockModel(synchronizer: sync, refreshInterval: .seconds(3600))
        defer { model.stop() }
        #expect(model.diagnostics?.sources.map(\.source) == ["s0", "s1", "s2"])
        #expect(model.diagnostics?.nextPoll == nil)
        sync.start()
        var answered = false
        for _ in 0..<100_000 where !answered {
            answered = model.diagnostics?.sources.allSatisfy { $0.lastSuccess != nil } == true
            await Task.yield()
        }
        #expect(answered)
        await sync.stop()

        let clockOnly = ServerClockModel(clock: ServerClock(timeBase: base), refreshInterval: .seconds(3600))
        defer { clockOnly.stop() }
        #expect(clockOnly.diagnostics == nil)
    }
}
#endif
