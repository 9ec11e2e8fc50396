import Testing
import TimeSync
import TimeSyncWire
import TimeSyncHTTP
import TimeSyncTesting

/// `429` and `503` responses as HTTP time sources see them: the typed error carries the status and
/// the `Retry-After`, and the schedule gets the matching outcome.
@Suite("429 and 503: retry later")
struct HTTPRetryLaterTests {
    /// Sun, 06 Nov 1994 08:49:37 GMT.
    static let wall = UnixTime(seconds: 784_111_777)

    static func error(_ status: Int, _ headers: [(String, String)]) -> HTTPTimeError? {
        HTTPTimeError.retryLater(status: status, headers: headers.map { (name: $0.0, value: $0.1) }, wallNow: wall)
    }

    @Test("429 with delta-seconds: the error carries both, the outcome waits that long")
    func tooManyRequestsWithDelta() throws {
        let error = try #require(Self.error(429, [("retry-after", "3600")]))
        #expect(error.code == .retryLater && error.status == 429 && error.retryAfter == .seconds(3600))
        #expect(error.pollOutcome == .retryAfter(.seconds(3600)))
        #expect(PollOutcome(failure: error) == .retryAfter(.seconds(3600)))
        #expect(error.description == "the server answered 429, retry after 3600 s")
    }

    @Test("503 with an HTTP-date counts from the response's Date, not the device's clock")
    func unavailableWithDate() throws {
        // The device's clock is an hour behind the server's; the server asks for two minutes.
        let error = try #require(Self.error(503, [
            ("Date", "Sun, 06 Nov 1994 09:49:37 GMT"), ("Retry-After", "Sun, 06 Nov 1994 09:51:37 GMT"),
        ]))
        #expect(error.retryAfter == .seconds(120))
        #expect(error.pollOutcome == .retryAfter(.seconds(120)))
        // Without a Date, the device's clock: a date in the past is "now".
        #expect(Self.error(503, [("Retry-After", "Sat, 05 Nov 1994 08:49:37 GMT")])?.retryAfter == .zero)
    }

    @Test("a huge Retry-After is clamped to a day; several fields give the longest")
    func hugeAndSeveral() {
        #expect(Self.error(429, [("Retry-After", "999999999999999999999")])?.retryAfter == HTTPRetryAfter.maximum)
        #expect(Self.error(429, [("Retry-After", "60"), ("Retry-After", "garbage"), ("Retry-After", "120")])?.retryAfter == .seconds(120))
    }

    @Test(
        "429 without a usable Retry-After slows polling like NTP's RATE; 503 without one is a failure",
        arguments: [[], [("Retry-After", "-5")], [("Retry-After", "soon")], [("Retry-After", "")]] as [[(String, String)]])
    func withoutUsableRetryAfter(headers: [(String, String)]) throws {
        let tooMany = try #require(Self.error(429, headers))
        #expect(tooMany.retryAfter == nil)
        #expect(tooMany.pollOutcome == .slowDown(interval: nil))
        if !headers.isEmpty { #expect(tooMany.description.contains("Retry-After '"), "\(tooMany)") }
        let unavailable = try #require(Self.error(503, headers))
        #expect(unavailable.pollOutcome == .failure)
    }

    @Test("other statuses are not back-off, and other errors are failures")
    func otherStatuses() {
        for status in [200, 304, 404, 500, 502] { #expect(Self.error(status, [("Retry-After", "60")]) == nil) }
        #expect(PollOutcome(failure: HTTPTimeError.timeout) == .failure)
        #expect(PollOutcome(failure: CancellationError()) == .failure)
    }

    /// A source that answers like an HTTP source facing a server that always says
    /// `429 Too Many Requests, Retry-After: 3600`.
    final class TooManyRequestsSource: SourceDriver {
        let name = "busy.example"
        let reference = TimeReference.utc
        private let count = Locked(0)
        var requests: Int { count.withLock { $0 } }

        func measure(until deadline: Deadline) async throws -> [OffsetSample] {
            count.withLock { $0 += 1 }
            throw HTTPTimeError.retryLater(
                status: 429, headers: [(name: "Retry-After", value: "3600")], wallNow: HTTPRetryLaterTests.wall)!
        }
    }

    @Test("a synchronizer sends one request in ten minutes to a server answering 429 Retry-After: 3600")
    func synchronizerObeys() async throws {
        let base = ManualTimeBase()
        let source = TooManyRequestsSource()
        let sync = try TimeSynchronizer(sources: [source], timeBase: base)
        sync.start()
        let end = base.monotonicNow().advanced(by: .seconds(600))
        while base.monotonicNow() < end {
            _ = await base.waitForSleepers(1)
            let next = min(base.nextWakeup ?? end, end)
            base.advance(by: base.monotonicNow().duration(to: max(next, base.monotonicNow())))
        }
        print("HTTP source answering 429 Retry-After 3600: \(source.requests) request(s) in 10 minutes")
        #expect(source.requests == 1)
        await sync.stop()
    }
}
