#if CLI
import AsyncHTTPClient
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Hummingbird
import Logging
import Testing
import TimeSync
import TimeSyncWire
import TimeSyncFixtures
import TimeSyncAsyncHTTPClient
import TimeSyncHTTP
import TimeSyncHummingbird

/// The AsyncHTTPClient source against a real loopback server that answers `429`/`503`: one request,
/// then a typed error carrying the status and the `Retry-After`, mapped for the schedule.
@Suite("HTTP Retry-After on loopback", .serialized)
struct HTTPRetryAfterInteropTests {
    /// Runs a server whose every response is `status` with `headers` (a stamped `Date` and
    /// `TimeSync-Time` too), counting requests, until `body` returns.
    static func withServer<Value>(
        status: HTTPResponse.Status, headers: HTTPFields, _ body: (Int, @escaping @Sendable () -> Int) async throws -> Value
    ) async throws -> Value {
        let requests = Locked(0)
        let router = Router(context: BasicRequestContext.self)
        router.get("/time") { _, _ -> Response in
            requests.withLock { $0 += 1 }
            return Response(status: status, headers: headers)
        }
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        var logger = Logger(label: "retry-after")
        logger.logLevel = .critical
        let app = TimeSyncApplication(
            router: router.timeStamped(), configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { continuation.yield($0.localAddress!.port!) }, logger: logger)
        let server = Task { try await app.runService(gracefulShutdownSignals: []) }
        defer { server.cancel() }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())
        return try await body(port) { requests.withLock { $0 } }
    }

    @Test("429 Retry-After: 3600: one request, an error carrying 429 and 3600 s, the schedule waits an hour")
    func tooManyRequests() async throws {
        try await Self.withServer(status: .tooManyRequests, headers: [.retryAfter: "3600"]) { port, requests in
            let client = HTTPTimeSource.makeClient()
            let source = try HTTPTimeSource(url: "http://127.0.0.1:\(port)/time", client: client, timeBase: SystemTimeBase())
            do {
                _ = try await source.measure(until: .after(.seconds(5), on: SystemTimeBase()))
                Issue.record("a 429 gave a sample")
            } catch let error as HTTPTimeError {
                #expect(error.code == .retryLater)
                #expect(error.status == 429 && error.retryAfter == .seconds(3600), "\(error)")
                #expect(PollOutcome(failure: error) == .retryAfter(.seconds(3600)))
                var schedule = PollSchedule()
                let wait = schedule.next(after: PollOutcome(failure: error))
                #expect(wait.map { $0 >= .seconds(3600) } == true)
            }
            // The measurement stops at the first answer: no further samples are sent to a server that said wait.
            #expect(requests() == 1)
            try await client.shutdown()
        }
    }

    @Test("URLSessionTimeSource: 429 Retry-After: 3600 is the same typed error and the same wait")
    func urlSessionSource() async throws {
        try await Self.withServer(status: .tooManyRequests, headers: [.retryAfter: "3600"]) { port, requests in
            let session = URLSession(configuration: .ephemeral)
            defer { session.invalidateAndCancel() }
            let source = URLSessionTimeSource(url: URL(string: "http://127.0.0.1:\(port)/time")!, session: session, timeBase: SystemTimeBase())
            let error = await expectThrows(HTTPTimeError.retryLater) { try await source.measure(until: .after(.seconds(5), on: SystemTimeBase())) }
            let typed = try #require(error)
            #expect(typed.status == 429 && typed.retryAfter == .seconds(3600))
            #expect(PollOutcome(failure: typed) == .retryAfter(.seconds(3600)))
            #expect(requests() == 1)
        }
    }

    @Test("503 with an HTTP-date and 429 without Retry-After map to a wait and to RATE")
    func unavailableAndBareTooMany() async throws {
        // The date is two minutes after the response's own Date (the server's clock).
        let later = HTTPDate.imfFixdate(SystemTimeBase().wallNow().advanced(by: .seconds(120)))
        try await Self.withServer(status: .serviceUnavailable, headers: [.retryAfter: later]) { port, requests in
            let client = HTTPTimeSource.makeClient()
            let source = try HTTPTimeSource(url: "http://127.0.0.1:\(port)/time", client: client, policy: .dateOnly, timeBase: SystemTimeBase())
            let error = await expectThrows(HTTPTimeError.retryLater) { try await source.measure(until: .after(.seconds(5), on: SystemTimeBase())) }
            let wait = try #require(error?.retryAfter)
            #expect(wait > .seconds(115) && wait <= .seconds(121), "\(wait)")
            #expect(requests() == 1)
            try await client.shutdown()
        }
        try await Self.withServer(status: .tooManyRequests, headers: [:]) { port, _ in
            let client = HTTPTimeSource.makeClient()
            let source = try HTTPTimeSource(url: "http://127.0.0.1:\(port)/time", client: client, timeBase: SystemTimeBase())
            let error = await expectThrows(HTTPTimeError.retryLater) { try await source.measure(until: .after(.seconds(5), on: SystemTimeBase())) }
            #expect(PollOutcome(failure: try #require(error)) == .slowDown(interval: nil))
            try await client.shutdown()
        }
    }
}
#endif
