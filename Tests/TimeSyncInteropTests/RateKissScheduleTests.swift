#if CLI
import Testing
import TimeSync
import TimeSyncServerSupport
import TimeSyncTestSupport
import TimeSyncNTP

/// A `RATE` kiss on a real socket reaches the poll schedule: the measurement ends with the kiss
/// (not with its 5 s deadline, as a timeout), and the source's next poll comes no sooner than the
/// doubled floor or the interval the server asked for (2^poll s), whichever is longer, up to the
/// policy's maximum.
@Suite(.serialized) struct RateKissScheduleTests {
    /// poll 3 asks 8 s, less than the doubled floor (128 s) but longer than the 5 s deadline: a series
    /// that kept such a kiss to itself would wait for a request it could not send, and fail as a
    /// timeout. poll 9 asks 512 s: the schedule takes the server's interval.
    @Test(.timeLimit(.minutes(1)), arguments: [(Int8(3), Duration.seconds(128)), (Int8(9), Duration.seconds(512))])
    func aRateKissSlowsTheSourceDownWithTheServersInterval(poll: Int8, expected: Duration) async throws {
        let fake = try await FakeNTPServer.start { request in [NTPServerResponder.kiss(.rate, to: request, poll: poll).encoded()] }
        let base = SystemTimeBase()
        let server = NTPServerAddress(host: "127.0.0.1", port: try #require(fake.address.port))
        // No target error: the policy's longest interval stays 1024 s (a target error would shorten it
        // for a source trusted alone), so the server's 512 s shows as it is.
        let sync = try TimeSynchronizer(
            sources: [NTPTimeSource(server, timeBase: base)], configuration: .init(targetError: nil), timeBase: base)
        #expect(sync.configuration.timeout == .seconds(5))
        let events = sync.events()
        let started = base.monotonicNow()
        sync.start()
        var kissed = false
        for await event in events {
            if case .kissed(_, let stopped) = event {
                #expect(!stopped, "RATE slows a source down, it does not stop it")
                kissed = true
                break
            }
            if case .failed(_, let error) = event { Issue.record("the kiss was reported as a failure: \(error)") }
        }
        let elapsed = started.duration(to: base.monotonicNow())
        let diagnostics = sync.diagnostics()
        await sync.stop()
        await fake.close()

        #expect(kissed)
        #expect(elapsed < .seconds(4), "the measurement ended at the kiss, not at its 5 s deadline (\(elapsed.readable))")
        let source = try #require(diagnostics.sources.first)
        #expect(source.nextPollCause == .slowDown)
        #expect(source.lastFailure?.reason.contains("RATE") == true, "\(String(describing: source.lastFailure))")
        let failed = try #require(source.lastFailure?.time)
        let next = try #require(source.nextPoll)
        // The next poll is `expected` after the kiss (a little less: the failure is stamped after it).
        let wait = failed.duration(to: next)
        #expect(wait >= expected - .seconds(1) && wait <= expected, "next poll \(wait.readable) after the kiss; expected \(expected.readable)")
    }
}
#endif
