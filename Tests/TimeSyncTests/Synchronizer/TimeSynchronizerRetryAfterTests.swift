import Testing
import TimeSync
import TimeSyncFixtures
import TimeSyncTesting

/// A source whose server answers every request with "429, Retry-After: 3600", as an HTTP source
/// maps it. Counts its requests.
final class RetryAfterTimeSource: SourceDriver {
    let name = "busy"
    let reference = TimeReference.utc
    private let count = Locked(0)

    var requests: Int { count.withLock { $0 } }

    /// A refusal whose code means "come back in an hour".
    struct TooManyRequests: CodedError {
        var code: String { "tooManyRequests" }
        var pollOutcome: PollOutcome { .retryAfter(.seconds(3600)) }
        var description: String { "429, Retry-After: 3600" }
    }

    func measure(until deadline: Deadline) async throws -> [OffsetSample] {
        count.withLock { $0 += 1 }
        throw TooManyRequests()
    }
}

/// The synchronizer on a hand-moved clock obeys a server's `Retry-After`.
@Suite struct TimeSynchronizerRetryAfterTests {
    @Test func oneRequestInTenMinutesToAServerThatSaysRetryAfterAnHour() async throws {
        let base = ManualTimeBase()
        let source = RetryAfterTimeSource()
        let sync = try TimeSynchronizer(sources: [source], timeBase: base)
        sync.start()
        await TimeSynchronizerTests.run(base, sync, for: .seconds(600))
        #expect(source.requests == 1)
        // The app comes to the foreground: a resynchronization does not override the server's wait.
        sync.resynchronize(reason: "foreground")
        await TimeSynchronizerTests.run(base, sync, for: .seconds(600))
        print("synchronizer, a source answering 429 Retry-After 3600: \(source.requests) request(s) in 20 minutes")
        #expect(source.requests == 1)
        await TimeSynchronizerTests.run(base, sync, for: .seconds(3 * 3600))
        #expect((3...4).contains(source.requests), "\(source.requests) requests in 3 h 20 min")
        await sync.stop()
    }
}
