import HTTPTypes
import Testing
import TimeSync
import TimeSyncWire
import TimeSyncFixtures
import TimeSyncTesting
import TimeSyncHTTP

@Suite("Passive observation of responses")
struct HTTPTimeObserverTests {
    static let t1 = MonotonicInstant(nanoseconds: 1_000_000_000)
    static let t4 = MonotonicInstant(nanoseconds: 1_004_000_000)
    /// Server = monotonic + 1_763_701_483 s.
    static let header = HTTPTimeHeader(
        serverReceive: UnixTime(seconds: 1_763_701_484, nanoseconds: 1_000_000),
        serverTransmit: UnixTime(seconds: 1_763_701_484, nanoseconds: 3_000_000), nonce: "n0nce")

    let observer = HTTPTimeObserver(source: "api.example:443", timeBase: ManualTimeBase(wall: UnixTime(seconds: 1_763_701_000)))

    @Test("the TimeSync-Time header gives an exchange sample (nonce echoed)")
    func timeHeaderSample() throws {
        let observation = try observer.observe(
            status: 200, headers: [(name: "timesync-time", value: Self.header.fieldValue)],
            requestSent: Self.t1, responseReceived: Self.t4, nonce: "n0nce")
        #expect(observation.scheme == .timeHeader)
        let expected = try OffsetSample.exchange(
            source: "api.example:443", requestSent: Self.t1, serverReceive: Self.header.serverReceive,
            serverTransmit: Self.header.serverTransmit, responseReceived: Self.t4)
        #expect(observation.sample == expected)
        #expect(observation.sample.delay == 2_000_000)
    }

    @Test("the Date header gives a one-second timestamp sample; HTTPFields work too")
    func dateSample() throws {
        var fields = HTTPFields()
        fields[.date] = "Fri, 21 Nov 2025 05:04:44 GMT"
        let observation = try observer.observe(status: 200, headers: fields, requestSent: Self.t1, responseReceived: Self.t4)
        #expect(observation.scheme == .date)
        #expect(observation.sample.offset.lower == 1_763_701_484_000_000_000 - Self.t4.nanoseconds)
        #expect(observation.sample.offset.upper == 1_763_701_485_000_000_000 - Self.t1.nanoseconds)
    }

    @Test("dateOnly ignores TimeSync-Time; timeHeaderOnly refuses Date")
    func policies() throws {
        let headers = [(name: "Date", value: "Fri, 21 Nov 2025 05:04:44 GMT"), (name: "TimeSync-Time", value: Self.header.fieldValue)]
        var dateOnly = observer
        dateOnly.schemes = HTTPTimeScheme.schemes(for: .dateOnly)
        #expect(try dateOnly.observe(status: 200, headers: headers, requestSent: Self.t1, responseReceived: Self.t4).scheme == .date)
        var headerOnly = observer
        headerOnly.schemes = HTTPTimeScheme.schemes(for: .timeHeaderOnly)
        expectThrows(HTTPTimeError.missingTimeHeader) {
            try headerOnly.observe(status: 200, headers: [headers[0]], requestSent: Self.t1, responseReceived: Self.t4)
        }
    }

    @Test(
        "stale, replayed and malformed responses are rejected with typed errors",
        arguments: [
            (200, [("Age", "3"), ("Date", "Fri, 21 Nov 2025 05:04:44 GMT")], nil, HTTPTimeError.cachedResponse),
            (200, [("age", "x"), ("Date", "Fri, 21 Nov 2025 05:04:44 GMT")], nil, .cachedResponse),
            (304, [("Date", "Fri, 21 Nov 2025 05:04:44 GMT")], nil, .notModifiedWithoutFreshDate),
            (304, [("TimeSync-Time", HTTPTimeObserverTests.header.fieldValue)], nil, .notModifiedWithoutFreshDate),
            (200, [("TimeSync-Time", HTTPTimeHeader(serverReceive: HTTPTimeObserverTests.header.serverReceive, serverTransmit: HTTPTimeObserverTests.header.serverTransmit).fieldValue)], "n0nce", .nonceMissing),
            (200, [("TimeSync-Time", HTTPTimeObserverTests.header.fieldValue)], "other", .nonceMismatch),
            (200, [("TimeSync-Time", "v=1, s=oops")], nil, .malformedTimeHeader),
            (200, [("TimeSync-Time", "v=3, s=1, t2=1, t3=2")], nil, .unsupportedVersion),
            (200, [("Date", "Friday 21 Nov 2025")], nil, .invalidDate),
            (200, [("Date", "Fri, 21 Nov 2025 05:04:44 GMT"), ("Date", "Fri, 21 Nov 2025 05:04:45 GMT")], nil, .conflictingDates),
            (200, [("Server", "x")], nil, .missingDate),
            // t3 before t2.
            (200, [("TimeSync-Time", "v=1, s=1763701484, t2=5, t3=4")], nil, .inconsistentTimestamps),
        ] as [(Int, [(String, String)], String?, HTTPTimeError)])
    func rejections(status: Int, headers: [(String, String)], nonce: String?, error: HTTPTimeError) {
        expectThrows(error) {
            try observer.observe(
                status: status, headers: headers.map { (name: $0.0, value: $0.1) }, requestSent: Self.t1,
                responseReceived: Self.t4, nonce: nonce)
        }
    }

    @Test("a 304 that echoes the nonce is fresh; Age: 0 is not a cache hit")
    func freshNotModified() throws {
        let observation = try observer.observe(
            status: 304, headers: [(name: "Age", value: "0"), (name: "TimeSync-Time", value: Self.header.fieldValue)],
            requestSent: Self.t1, responseReceived: Self.t4, nonce: "n0nce")
        #expect(observation.scheme == .timeHeader)
    }

    @Test("the invalid date error carries the parser's reason")
    func dateErrorDetail() {
        do {
            _ = try observer.observe(
                status: 200, headers: [(name: "Date", value: "Sat, 21 Nov 2025 05:04:44 GMT")], requestSent: Self.t1,
                responseReceived: Self.t4)
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .invalidDate)
            #expect((error.underlying as? HTTPDateError)?.code == .weekdayMismatch)
        }
    }

    @Test("rejected responses leave a ServerClock's calibration unchanged")
    func calibrationUnchanged() throws {
        let timeBase = ManualTimeBase(monotonic: MonotonicInstant(nanoseconds: 1_004_000_000), wall: UnixTime(seconds: 1_763_701_484))
        let clock = ServerClock(timeBase: timeBase)
        let observer = HTTPTimeObserver(source: "api", timeBase: timeBase)
        try clock.observe(
            observer, status: 200, headers: [(name: "TimeSync-Time", value: Self.header.fieldValue)],
            requestSent: Self.t1, responseReceived: Self.t4, nonce: "n0nce")
        let before = clock.calibration
        #expect(before != nil)
        let bad: [[(name: String, value: String)]] = [
            [(name: "Age", value: "10"), (name: "TimeSync-Time", value: Self.header.fieldValue)],
            [(name: "TimeSync-Time", value: "v=1, s=1, t2=")],
            [(name: "Date", value: "Sun, 32 Nov 2025 05:04:44 GMT")],
            [(name: "TimeSync-Time", value: HTTPTimeHeader(serverReceive: UnixTime(seconds: 1), serverTransmit: UnixTime(seconds: 1), nonce: "old").fieldValue)],
        ]
        for headers in bad {
            #expect(throws: HTTPTimeError.self) {
                try clock.observe(observer, status: 200, headers: headers, requestSent: Self.t1, responseReceived: Self.t4, nonce: "n0nce")
            }
        }
        #expect(clock.calibration == before)
    }
}
