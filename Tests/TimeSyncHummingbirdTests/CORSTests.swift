#if Hummingbird
import Hummingbird
import HTTPTypes
import HummingbirdTesting
import Logging
import Testing
import TimeSync
import TimeSyncTesting
import TimeSyncHTTP
import TimeSyncHummingbird

/// A web page on another origin reads the stamps only when the server allows its origin: the CORS
/// headers on responses and the answer to the browser's preflight, in both forms of stamping.
@Suite struct CORSTests {
    static let wall = UnixTime(seconds: 1_763_701_484, nanoseconds: 250_000_000)

    func test(
        _ form: MiddlewareTests.Form, cors: TimeSyncCORS?, _ body: @escaping @Sendable (any TestClientProtocol) async throws -> Void
    ) async throws {
        let timeBase = ManualTimeBase(wall: Self.wall)
        let router: Router<BasicRequestContext>
        switch form {
        case .middleware:
            router = TimeSyncHTTPServer.router(timeBase: timeBase, cors: cors)
            try await Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)), logger: Logger(label: "test"))
                .test(.router, body)
        case .responder:
            router = Router(context: BasicRequestContext.self)
            router.addTimeRoute(timeBase: timeBase)
            try await Application(
                router: router.timeStamped(timeBase: timeBase, cors: cors), configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                logger: Logger(label: "test")
            ).test(.router, body)
        }
    }

    @Test("an allowed origin may read TimeSync-Time and Date", arguments: MiddlewareTests.Form.allCases)
    func anAllowedOriginReadsTheStamps(form: MiddlewareTests.Form) async throws {
        try await test(form, cors: TimeSyncCORS(origins: .only(["https://shop.example", "http://localhost:8080"]))) { client in
            try await client.execute(uri: "/time", method: .get, headers: [.origin: "HTTPS://Shop.Example"]) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.accessControlAllowOrigin] == "HTTPS://Shop.Example")
                #expect(response.headers[.accessControlExposeHeaders] == "TimeSync-Time, Date, Age, Retry-After")
                #expect(response.headers[HTTPField.Name("Timing-Allow-Origin")!] == "HTTPS://Shop.Example")
                #expect(response.headers[values: .vary].contains("Origin"))
                #expect(response.headers[.timeSyncTime] != nil)
            }
            try await client.execute(uri: "/time", method: .get, headers: [.origin: "https://evil.example"]) { response in
                #expect(response.status == .ok, "answered, but the browser keeps it from the page")
                #expect(response.headers[.accessControlAllowOrigin] == nil)
                #expect(response.headers[.accessControlExposeHeaders] == nil)
                #expect(response.headers[HTTPField.Name("Timing-Allow-Origin")!] == nil)
            }
            try await client.execute(uri: "/time", method: .get) { response in
                #expect(response.headers[.accessControlAllowOrigin] == nil, "no Origin, no CORS header")
            }
        }
    }

    @Test("the preflight for the nonce header is answered; a stranger's is refused", arguments: MiddlewareTests.Form.allCases)
    func preflight(form: MiddlewareTests.Form) async throws {
        try await test(form, cors: TimeSyncCORS(origins: .only(["https://shop.example"]), maximumAge: .seconds(600))) { client in
            let ask: HTTPFields = [.origin: "https://shop.example", .accessControlRequestMethod: "GET", .accessControlRequestHeaders: "timesync-nonce"]
            try await client.execute(uri: "/time", method: .options, headers: ask) { response in
                #expect(response.status == .noContent)
                #expect(response.headers[.accessControlAllowOrigin] == "https://shop.example")
                #expect(response.headers[.accessControlAllowMethods] == "GET, HEAD")
                #expect(response.headers[.accessControlAllowHeaders] == "TimeSync-Nonce")
                #expect(response.headers[.accessControlMaxAge] == "600")
            }
            var stranger = ask
            stranger[.origin] = "https://evil.example"
            try await client.execute(uri: "/time", method: .options, headers: stranger) { response in
                #expect(response.status == .forbidden)
                #expect(response.headers[.accessControlAllowOrigin] == nil)
            }
        }
    }

    @Test("any origin: '*', and the nonce still echoed", arguments: MiddlewareTests.Form.allCases)
    func anyOrigin(form: MiddlewareTests.Form) async throws {
        try await test(form, cors: TimeSyncCORS(origins: .any)) { client in
            try await client.execute(uri: "/time", method: .get, headers: [.origin: "https://anyone.example", .timeSyncNonce: "\"n-1\""]) { response in
                #expect(response.headers[.accessControlAllowOrigin] == "*")
                #expect(response.headers[values: .vary].isEmpty)
                let header = try HTTPTimeHeader(parsing: try #require(response.headers[.timeSyncTime]))
                #expect(header.nonce == "n-1")
            }
        }
    }

    @Test("without CORS settings nothing changes: no header, and OPTIONS is the router's")
    func withoutCORS() async throws {
        try await test(.middleware, cors: nil) { client in
            try await client.execute(uri: "/time", method: .get, headers: [.origin: "https://shop.example"]) { response in
                #expect(response.headers[.accessControlAllowOrigin] == nil)
            }
            let ask: HTTPFields = [.origin: "https://shop.example", .accessControlRequestMethod: "GET"]
            try await client.execute(uri: "/time", method: .options, headers: ask) { response in
                #expect(response.status != .noContent)
                #expect(response.headers[.accessControlAllowOrigin] == nil)
            }
        }
    }
}
#endif
