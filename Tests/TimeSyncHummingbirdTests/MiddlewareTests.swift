#if Hummingbird
import Hummingbird
import HummingbirdTesting
import Logging
import Testing
import TimeSync
import TimeSyncTesting
import TimeSyncHTTP
import TimeSyncHummingbird

@Suite("TimestampMiddleware and /time")
struct MiddlewareTests {
    static let wall = UnixTime(seconds: 1_763_701_484, nanoseconds: 250_000_000)

    func application(timeBase: any TimeBase) -> some ApplicationProtocol {
        let router = TimeSyncHTTPServer.router(timeBase: timeBase, uncertainty: .microseconds(5))
        Self.addRoutes(router)
        return Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)), logger: Logger(label: "test"))
    }

    static func addRoutes(_ router: Router<BasicRequestContext>) {
        router.get("/api/items") { _, _ in "[]" }
        router.get("/api/fail") { _, _ -> String in throw HTTPError(.badRequest) }
    }

    /// The two forms of stamping: ``TimestampMiddleware`` in the router, ``TimestampResponder`` around it.
    enum Form: CaseIterable { case middleware, responder }

    func test(_ form: Form, timeBase: any TimeBase, _ body: @escaping @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        switch form {
        case .middleware:
            try await application(timeBase: timeBase).test(.router, body)
        case .responder:
            let router = Router(context: BasicRequestContext.self)
            router.addTimeRoute(timeBase: timeBase)
            Self.addRoutes(router)
            let app = Application(
                router: router.timeStamped(timeBase: timeBase, uncertainty: .microseconds(5)),
                configuration: .init(address: .hostname("127.0.0.1", port: 0)), logger: Logger(label: "test"))
            try await app.test(.router, body)
        }
    }

    @Test("every route is stamped, errors and 404s included", arguments: Form.allCases, ["/time", "/api/items", "/api/fail", "/missing"])
    func stampsEveryRoute(form: Form, path: String) async throws {
        let timeBase = ManualTimeBase(wall: Self.wall)
        try await test(form, timeBase: timeBase) { client in
            try await client.execute(uri: path, method: .get) { response in
                let value = try #require(response.headers[.timeSyncTime])
                let header = try HTTPTimeHeader(parsing: value)
                #expect(header.serverReceive == Self.wall)
                #expect(header.serverTransmit == Self.wall)
                #expect(header.nonce == nil)
                #expect(header.uncertainty == .microseconds(5))
            }
        }
    }

    @Test("/time is no-store and its body is the server's time")
    func timeRoute() async throws {
        let timeBase = ManualTimeBase(wall: Self.wall)
        try await application(timeBase: timeBase).test(.router) { client in
            try await client.execute(uri: "/time", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.cacheControl] == "no-store")
                #expect(String(buffer: response.body) == "1763701484.250000000\n")
            }
        }
    }

    @Test("the request's nonce is echoed; an invalid one is not", arguments: Form.allCases)
    func nonceEcho(form: Form) async throws {
        let timeBase = ManualTimeBase(wall: Self.wall)
        try await test(form, timeBase: timeBase) { client in
            try await client.execute(uri: "/api/items", method: .get, headers: [.timeSyncNonce: #""abcDEF123""#]) { response in
                let header = try HTTPTimeHeader(parsing: response.headers[.timeSyncTime] ?? "")
                #expect(header.nonce == "abcDEF123")
            }
            try await client.execute(uri: "/api/items", method: .get, headers: [.timeSyncNonce: "not-a-string"]) { response in
                let header = try HTTPTimeHeader(parsing: response.headers[.timeSyncTime] ?? "")
                #expect(header.nonce == nil)
            }
        }
    }

    @Test("live server: t2 ≤ t3 on the real clock and the observer accepts the response")
    func live() async throws {
        let timeBase = SystemTimeBase()
        try await application(timeBase: timeBase).test(.live) { client in
            let nonce = HTTPTimeNonce.random()
            let sent = timeBase.monotonicNow()
            try await client.execute(uri: "/time", method: .get, headers: [.timeSyncNonce: HTTPTimeNonce.fieldValue(nonce)]) { response in
                let received = timeBase.monotonicNow()
                let header = try HTTPTimeHeader(parsing: response.headers[.timeSyncTime] ?? "")
                #expect(header.serverReceive <= header.serverTransmit)
                let observation = try HTTPTimeObserver(source: "live", timeBase: timeBase).observe(
                    status: Int(response.status.code), headers: response.headers, requestSent: sent, responseReceived: received,
                    nonce: nonce)
                #expect(observation.scheme == .timeHeader)
                // Same machine, same clocks: the bounds on wall − monotonic must hold the real value.
                let wallMinusMonotonic = timeBase.wallNow().nanoseconds - timeBase.monotonicNow().nanoseconds
                #expect(observation.sample.offset.widened(by: 1_000_000).contains(wallMinusMonotonic))
            }
        }
    }
}
#endif
