#if CLI
import AsyncHTTPClient
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Testing
import TimeSync
import TimeSyncWire
import TimeSyncTestSupport
import TimeSyncTesting
import TimeSyncHTTP
import TimeSyncHummingbird

/// The `Date` header is the second of the same clock reading as t3, on every response.
@Suite("Date header from t3, live")
struct LiveDateHeaderTests {
    /// One request's headers and the client's wall clock around it.
    struct Observation: Sendable {
        let date: String
        let t3: UnixTime
        let sent: UnixTime
        let received: UnixTime

        /// The client's request midpoint less the start of the `Date` second: within [0, 1 s) plus
        /// half the round trip for a true `Date`.
        var lag: Duration { sent.duration(to: received) / 2 + (try! HTTPDate.parse(date, reference: sent)).duration(to: sent) }
        var roundTrip: Duration { sent.duration(to: received) }
    }

    /// Runs `app` as the service it is (HummingbirdTesting's `.live` runs its own loop, with
    /// Hummingbird's date cache), makes `count` requests over a warm connection spaced by a few
    /// milliseconds, and returns what each saw.
    static func observe<App: ApplicationProtocol>(
        _ app: App, ports: AsyncStream<Int>, count: Int, paths: [String] = ["/time", "/missing"]
    ) async throws -> [Observation] {
        try await withRunning(app, ports: ports) { port, client in
            let wall = SystemTimeBase()
            var generator = SeededGenerator(seed: 42)
            var observations: [Observation] = []
            for index in 0..<count {
                let request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(paths[index % paths.count])")
                let sent = wall.wallNow()
                let response = try await client.execute(request, timeout: .seconds(5))
                let received = wall.wallNow()
                _ = try await response.body.collect(upTo: 1 << 16)
                let date = try #require(response.headers.first(name: "Date"))
                let header = try HTTPTimeHeader(parsing: try #require(response.headers.first(name: HTTPTimeHeader.name)))
                observations.append(Observation(date: date, t3: header.serverTransmit, sent: sent, received: received))
                // Spread over more than a second, at no fixed phase: 0–24 ms apart.
                try await Task.sleep(for: .milliseconds(Int(generator.next() % 25)))
            }
            return observations
        }
    }

    /// Runs `app` as a service until `body` returns, handing it the port the app bound and an HTTP
    /// client.
    static func withRunning<App: ApplicationProtocol, Value>(
        _ app: App, ports: AsyncStream<Int>, _ body: (Int, HTTPClient) async throws -> Value
    ) async throws -> Value {
        let server = Task { try await app.runService(gracefulShutdownSignals: []) }
        defer { server.cancel() }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        defer { _ = client.shutdown() }
        return try await body(port, client)
    }

    /// A logger for test servers that only reports what is critical (cancelling a server logs errors).
    static func quietLogger(_ label: String) -> Logger {
        var logger = Logger(label: label)
        logger.logLevel = .critical
        return logger
    }

    static func milliseconds(_ duration: Duration) -> String {
        String(format: "%.1f ms", Double(duration.nanosecondsClamped) / 1e6)
    }

    /// `timesync serve --http`'s application on real loopback: every response's `Date` is
    /// `HTTPDate.imfFixdate(t3)`, over more than one second boundary, 404s included, and never
    /// behind the client's clock by a second or more.
    @Test("live: every response's Date equals imfFixdate(t3), across second boundaries")
    func liveDateAgreesWithT3() async throws {
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = TimeSyncHTTPServer.application(
            host: "127.0.0.1", port: 0, logger: Self.quietLogger("server"), onServerRunning: { continuation.yield($0) })
        let observations = try await Self.observe(app, ports: ports, count: 100)
        #expect(Set(observations.map(\.date)).count >= 2, "the requests did not span a second boundary")
        for observation in observations {
            #expect(observation.date == HTTPDate.imfFixdate(observation.t3))
            #expect(observation.lag >= observation.roundTrip / -2 && observation.lag < .seconds(1) + observation.roundTrip)
        }
    }

    /// The figure: how far `Date` lags the client's clock at the request midpoint, over 100 requests,
    /// with Hummingbird's `Application` (its date cache: before) and ``TimeSyncApplication`` (after),
    /// the same stamped router in both.
    @Test("Date lag over 100 requests: Application vs TimeSyncApplication")
    func dateLagFigure() async throws {
        func router() -> TimestampResponderBuilder<Router<BasicRequestContext>> {
            let router = Router(context: BasicRequestContext.self)
            router.addTimeRoute()
            return router.timeStamped()
        }
        let configuration = ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0))
        var results: [String: [Observation]] = [:]
        do {
            let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
            let app = Application(
                router: router(), configuration: configuration,
                onServerRunning: { continuation.yield($0.localAddress!.port!) }, logger: Self.quietLogger("before"))
            results["Application (before)"] = try await Self.observe(app, ports: ports, count: 100)
        }
        do {
            let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
            let app = TimeSyncApplication(
                router: router(), configuration: configuration,
                onServerRunning: { continuation.yield($0.localAddress!.port!) }, logger: Self.quietLogger("after"))
            results["TimeSyncApplication (after)"] = try await Self.observe(app, ports: ports, count: 100)
        }
        for (name, observations) in results.sorted(by: { $0.key < $1.key }) {
            let lags = observations.map(\.lag).sorted()
            let disagreeing = observations.filter { $0.date != HTTPDate.imfFixdate($0.t3) }.count
            print(
                "Date lag, \(name), \(lags.count) requests: min \(Self.milliseconds(lags.first!)), "
                    + "median \(Self.milliseconds(lags[lags.count / 2])), max \(Self.milliseconds(lags.last!)); "
                    + "Date ≠ imfFixdate(t3) on \(disagreeing); max round trip \(Self.milliseconds(observations.map(\.roundTrip).max()!))")
        }
        let after = try #require(results["TimeSyncApplication (after)"])
        #expect(after.allSatisfy { $0.date == HTTPDate.imfFixdate($0.t3) })
        #expect(after.allSatisfy { $0.lag < .seconds(1) + $0.roundTrip })
    }

    /// A response without a `Date` of its own (an unstamped responder) gets the current second's
    /// from ``TimeSyncApplication``, not a cached one.
    @Test("TimeSyncApplication dates unstamped responses from its time base")
    func unstampedResponsesAreDated() async throws {
        let wall = UnixTime(seconds: 1_763_701_484, nanoseconds: 500_000_000)
        let router = Router(context: BasicRequestContext.self)
        router.get("/plain") { _, _ in "plain" }
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = TimeSyncApplication(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { continuation.yield($0.localAddress!.port!) }, timeBase: ManualTimeBase(wall: wall),
            logger: Self.quietLogger("server"))
        try await Self.withRunning(app, ports: ports) { port, client in
            for path in ["/plain", "/missing"] {
                let response = try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)"), timeout: .seconds(5))
                _ = try await response.body.collect(upTo: 1 << 16)
                #expect(response.headers.first(name: "Date") == "Fri, 21 Nov 2025 05:04:44 GMT")
            }
        }
    }
}
#endif
