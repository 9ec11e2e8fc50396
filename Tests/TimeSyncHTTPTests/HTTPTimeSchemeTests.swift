import Testing
import TimeSync
import TimeSyncFixtures
import TimeSyncHTTP

/// Server-time conventions other than `TimeSync-Time`, without hand-made samples.
@Suite struct HTTPTimeSchemeTests {
    static let t1 = MonotonicInstant(nanoseconds: 5_000_000_000_000)
    static let t4 = MonotonicInstant(nanoseconds: 5_000_040_000_000)  // 40 ms later
    static let milliseconds = HTTPTimeScheme.unixTimestamp(header: "Response-Timestamp", unit: .milliseconds(1))

    static func observe(
        _ schemes: [HTTPTimeScheme], _ headers: [(name: String, value: String)], status: Int = 200
    ) throws(HTTPTimeError) -> HTTPTimeObservation {
        try HTTPTimeObserver(source: "api.example.com", schemes: schemes)
            .observe(status: status, headers: headers, requestSent: t1, responseReceived: t4)
    }

    @Test func aMillisecondResponseTimestampBoundsTheOffsetToItsMillisecond() throws {
        let observation = try Self.observe([Self.milliseconds], [("response-timestamp", "1790000000123")])
        #expect(observation.scheme == .unixTimestamp)
        let serverTime: Int64 = 1_790_000_000_123_000_000
        // θ ∈ [T − t4, T + 1 ms − t1]: the server stamped somewhere in the round trip, in that millisecond.
        #expect(observation.sample.offset.lower == serverTime - Self.t4.nanoseconds)
        #expect(observation.sample.offset.upper == serverTime + 1_000_000 - Self.t1.nanoseconds)
    }

    @Test func aNanosecondTimestampHasNineteenDigits() throws {
        let scheme = HTTPTimeScheme.unixTimestamp(header: "X-Time-Ns", unit: .nanoseconds(1))
        let observation = try Self.observe([scheme], [("X-Time-Ns", "1790000000123456789")])
        #expect(observation.sample.offset.lower == 1_790_000_000_123_456_789 - Self.t4.nanoseconds)
    }

    @Test func aFractionIsReadToItsLastDigit() throws {
        let scheme = HTTPTimeScheme.unixTimestamp(header: "X-Server-Time", unit: .seconds(1))
        let observation = try Self.observe([scheme], [("X-Server-Time", " 1790000000.25 ")])
        #expect(observation.sample.offset.lower == 1_790_000_000_250_000_000 - Self.t4.nanoseconds)
        #expect(observation.sample.offset.upper == 1_790_000_000_260_000_000 - Self.t1.nanoseconds)
    }

    /// A unit that is not a power of ten of nanoseconds up to a second cannot be read exactly: every
    /// response is refused, and the message names the unit.
    @Test(arguments: [Duration.milliseconds(250), .seconds(10), .zero, .nanoseconds(-1000)])
    func aUnitThatIsNotAPowerOfTenIsRefused(unit: Duration) {
        let scheme = HTTPTimeScheme.unixTimestamp(header: "X-Time", unit: unit)
        let error = expectThrows(HTTPTimeError.malformedTimestamp) { try Self.observe([scheme], [("X-Time", "1790000000")]) }
        #expect(error?.description.contains("\(unit)") == true, "\(String(describing: error))")
    }

    @Test func aTenthOfASecondIsAUnitToo() throws {
        let scheme = HTTPTimeScheme.unixTimestamp(header: "X-Deciseconds", unit: .milliseconds(100))
        let observation = try Self.observe([scheme], [("X-Deciseconds", "17900000001")])
        #expect(observation.sample.offset.lower == 1_790_000_000_100_000_000 - Self.t4.nanoseconds)
        #expect(observation.sample.offset.upper == 1_790_000_000_200_000_000 - Self.t1.nanoseconds)
    }

    @Test(arguments: [
        "-5", "12a", "", ".", "1.2.3", "1e9", "12345678901234567890", "7258118400000", "+1790000000123",
        "9999999999999999999", "1.9999999999999999999",
    ])
    func malformedTimestampsAreTypedErrors(value: String) {
        expectThrows(HTTPTimeError.malformedTimestamp) {
            try Self.observe([Self.milliseconds], [("Response-Timestamp", value)])
        }
    }

    @Test func missingConflictingAndNotModifiedAreRejected() {
        expectThrows(HTTPTimeError.missingTimestamp) { try Self.observe([Self.milliseconds], [("Date", "x")]) }
        expectThrows(HTTPTimeError.malformedTimestamp) {
            try Self.observe([Self.milliseconds], [("Response-Timestamp", "1790000000123"), ("Response-Timestamp", "1790000000999")])
        }
        expectThrows(HTTPTimeError.notModifiedWithoutFreshDate) {
            try Self.observe([Self.milliseconds], [("Response-Timestamp", "1790000000123")], status: 304)
        }
        expectThrows(HTTPTimeError.cachedResponse) {
            try Self.observe([Self.milliseconds], [("Response-Timestamp", "1790000000123"), ("Age", "12")])
        }
    }

    @Test func schemesAreTriedInOrder() throws {
        let headers: [(name: String, value: String)] = [("Date", "Sat, 21 Nov 2026 05:04:45 GMT")]
        #expect(try Self.observe([Self.milliseconds, .date], headers).scheme == .date)
        let both = headers + [("Response-Timestamp", "1795323885123")]
        #expect(try Self.observe([Self.milliseconds, .date], both).scheme == .unixTimestamp)
        #expect(try Self.observe([.date, Self.milliseconds], both).scheme == .date)
        expectThrows(HTTPTimeError.missingTimeHeader) { try Self.observe([.timeSyncTime], headers) }
    }

    @Test func aCustomSchemeWithProcessingTimeIsAnExchange() throws {
        // An API that reports its time and how long it worked in its own header, "t=…;took=…" in µs.
        let scheme = HTTPTimeScheme.custom(name: "X-Timing") { _, headers in
            guard let value = headers.first(where: { $0.name == "X-Timing" })?.value else { throw HTTPTimeError.missingTimestamp }
            let parts = value.split(separator: ";").map { $0.split(separator: "=")[1] }
            return (serverTime: UnixTime(nanoseconds: Int64(parts[0])! * 1_000), resolution: .zero, processingTime: .microseconds(Int64(parts[1])!))
        }
        let observation = try Self.observe([scheme], [("X-Timing", "t=1790000000000000;took=30000")])
        #expect(observation.scheme == .custom)
        // t2 = T − 30 ms, t3 = T: θ ∈ [t3 − t4, t2 − t1] = [T − t4, T − 30 ms − t1], 10 ms wide.
        #expect(observation.sample.offset.width == 10_000_000)
        expectThrows(HTTPTimeError.missingTimestamp) { try Self.observe([scheme], [("Other", "1")]) }
    }

    @Test func aCustomSchemeErrorIsReportedWithItsName() {
        struct Unreadable: Error, CustomStringConvertible { var description: String { "no time in the body" } }
        let scheme = HTTPTimeScheme.custom(name: "JSON body") { _, _ in throw Unreadable() }
        do {
            _ = try Self.observe([scheme], [])
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .missingTimestamp)
            #expect(error.description.contains("JSON body: no time in the body"))
        }
    }
}
