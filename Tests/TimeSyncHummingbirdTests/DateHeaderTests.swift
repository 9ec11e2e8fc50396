#if Hummingbird
import Hummingbird
import HummingbirdTesting
import Testing
import TimeSync
import TimeSyncWire
import TimeSyncHTTP
import TimeSyncHummingbird

/// A wall clock that reads the given times in turn (the last one from then on), monotonic fixed.
final class SteppingTimeBase: TimeBase {
    private let readings: Locked<[UnixTime]>

    init(_ readings: [UnixTime]) { self.readings = Locked(readings) }

    func wallNow() -> UnixTime {
        readings.withLock { $0.count > 1 ? $0.removeFirst() : $0[0] }
    }
    func monotonicNow() -> MonotonicInstant { MonotonicInstant(nanoseconds: 1_000_000_000_000) }
    func sleep(until deadline: MonotonicInstant) async throws {}
    var bootSessionID: String? { "stepping" }
}

/// The `Date` header is the second of the same clock reading as t3, on every response.
@Suite("Date header from t3")
struct DateHeaderTests {
    /// Stamper, deterministic: t2 just before a second boundary, t3 just after; `Date` names t3's
    /// second (read once: no second clock reading could name another).
    @Test("Date is t3's second even when t2 is in the previous one", arguments: MiddlewareTests.Form.allCases)
    func dateFollowsT3(form: MiddlewareTests.Form) async throws {
        let t2 = UnixTime(seconds: 1_763_701_484, nanoseconds: 999_999_999)
        let t3 = UnixTime(seconds: 1_763_701_485, nanoseconds: 1)
        let later = UnixTime(seconds: 1_763_701_486, nanoseconds: 0)  // any further reading
        let timeBase = SteppingTimeBase([t2, t3, later])
        let router = Router(context: BasicRequestContext.self)
        switch form {
        case .middleware:
            router.add(middleware: TimestampMiddleware(timeBase: timeBase))
            router.get("/api") { _, _ in "ok" }
            try await Self.expectDate(Application(router: router), t2: t2, t3: t3)
        case .responder:
            router.get("/api") { _, _ in "ok" }
            try await Self.expectDate(Application(router: router.timeStamped(timeBase: timeBase)), t2: t2, t3: t3)
        }
    }

    static func expectDate(_ app: some ApplicationProtocol, t2: UnixTime, t3: UnixTime) async throws {
        try await app.test(.router) { client in
            try await client.execute(uri: "/api", method: .get) { response in
                let header = try HTTPTimeHeader(parsing: response.headers[.timeSyncTime] ?? "")
                #expect(header.serverReceive == t2)
                #expect(header.serverTransmit == t3)
                #expect(response.headers[.date] == "Fri, 21 Nov 2025 05:04:45 GMT")
                #expect(response.headers[.date] == HTTPDate.imfFixdate(t3))
            }
        }
    }
}
#endif
