#if AsyncHTTPClient
import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOPosix
import Testing
import TimeSync
import TimeSyncWire
import TimeSyncFixtures
import TimeSyncTesting
import TimeSyncAsyncHTTPClient
import TimeSyncHTTP

/// Responses as an attacker or a careless server sends them: each gets a typed error and changes
/// nothing; none traps.
@Suite("Hostile and careless HTTP responses")
struct HTTPHostileInputTests {
    static let t1 = MonotonicInstant(nanoseconds: 1_000_000_000)
    static let t4 = MonotonicInstant(nanoseconds: 1_004_000_000)
    let observer = HTTPTimeObserver(source: "api.example:443", timeBase: ManualTimeBase(wall: UnixTime(seconds: 1_763_701_000)))

    func observe(_ headers: [(String, String)]) throws(HTTPTimeError) -> HTTPTimeObservation {
        try observer.observe(
            status: 200, headers: headers.map { (name: $0.0, value: $0.1) }, requestSent: Self.t1, responseReceived: Self.t4)
    }

    @Test("a Date far outside the supported years is a typed error, not a trap")
    func extremeDates() {
        // Valid HTTP-dates (the day names match) that no working server sends.
        let dates = [
            HTTPDate.imfFixdate(UnixTime(seconds: -9_200_000_000)),  // 1678
            HTTPDate.imfFixdate(UnixTime(nanoseconds: .min)),  // 1677, the first representable second
            "Fri, 31 Dec 9999 23:59:59 GMT",  // beyond Int64 nanoseconds since 1970
            HTTPDate.imfFixdate(SampleLimits.serverTimes.upperBound),  // 2200
        ]
        #expect(dates[0].contains(" 1678 "))
        for date in dates {
            do {
                _ = try observe([("Date", date)])
                Issue.record("\(date) was accepted")
            } catch {
                #expect(error.code == .invalidDate || error.code == .inconsistentTimestamps, "\(date): \(error)")
                if error.code == .inconsistentTimestamps { #expect((error.underlying as? SampleError)?.code == .timeOutOfRange) }
            }
        }
    }

    @Test("a TimeSync-Time at the edges of its integers is a typed error, not a trap")
    func extremeTimeHeaders() {
        let edge = 999_999_999_999_999  // the largest RFC 9651 integer
        let values = [
            "v=1, s=\(edge), t2=\(edge), t3=\(edge)",
            "v=1, s=-\(edge), t2=-\(edge), t3=-\(edge)",
            "v=1, s=\(edge), t2=0, t3=0",
            "v=1, s=1763701484, t2=-\(edge), t3=\(edge)",
            "v=1, s=1763701484, t2=0, t3=0, u=\(edge)",
            "v=1, s=1763701484, t2=0, t3=0, u=-\(edge)",
        ]
        for value in values {
            #expect(throws: HTTPTimeError.self, "\(value)") { try observe([("TimeSync-Time", value)]) }
        }
    }

    @Test("two different TimeSync-Time fields conflict, like two Dates; identical copies are one")
    func conflictingTimeHeaders() throws {
        let a = HTTPTimeHeader(
            serverReceive: UnixTime(seconds: 1_763_701_484, nanoseconds: 1_000_000),
            serverTransmit: UnixTime(seconds: 1_763_701_484, nanoseconds: 2_000_000)).fieldValue
        let b = HTTPTimeHeader(
            serverReceive: UnixTime(seconds: 1_763_702_484, nanoseconds: 1_000_000),
            serverTransmit: UnixTime(seconds: 1_763_702_484, nanoseconds: 2_000_000)).fieldValue
        expectThrows(HTTPTimeError.conflictingTimeHeaders) { try observe([("TimeSync-Time", a), ("timesync-time", b)]) }
        // Joined into one field line by a client or proxy (RFC 9110 §5.3): still two headers.
        expectThrows(HTTPTimeError.conflictingTimeHeaders) { try observe([("TimeSync-Time", "\(a), \(b)")]) }
        expectThrows(HTTPTimeError.conflictingTimeHeaders) { try observe([("TimeSync-Time", "\(b), \(a)")]) }
        // The same header twice is that header.
        let once = try observe([("TimeSync-Time", a)])
        #expect(try observe([("TimeSync-Time", a), ("TimeSync-Time", a)]) == once)
        #expect(try observe([("TimeSync-Time", "\(a), \(a)")]) == once)
        // A comma inside a string member does not split.
        let quoted = "v=1, s=1763701484, t2=1000000, t3=2000000, x=\"a, v=2\""
        #expect(try observe([("TimeSync-Time", quoted)]) == once)
    }

    @Test("a leap second (:60) in Date is accepted as the two seconds of Unix time it may read as")
    func leapSecond() throws {
        let observation = try observe([("Date", "Sat, 31 Dec 2016 23:59:60 GMT")])
        let lastSecond = UnixTime(seconds: 1_483_228_799).nanoseconds  // 2016-12-31T23:59:59Z
        #expect(observation.scheme == .date)
        #expect(observation.sample.offset.lower == lastSecond - Self.t4.nanoseconds)
        #expect(observation.sample.offset.upper == lastSecond + 2_000_000_000 - Self.t1.nanoseconds)
        expectThrows(HTTPTimeError.invalidDate) { try observe([("Date", "Sat, 31 Dec 2016 23:58:60 GMT")]) }
    }

    @Test("a measurement answers with its majority: one lying response is outvoted, two against two is no answer")
    func measurementConsensus() throws {
        let lie: Int64 = 1_000_000_000_000
        func samples(_ offsets: [Int64]) throws -> [OffsetSample] {
            try offsets.enumerated().map { index, offset in
                let sent = MonotonicInstant(nanoseconds: 1_000_000_000 + Int64(index) * 20_000_000)
                let server = UnixTime(nanoseconds: 1_763_701_484_000_000_000 + Int64(index) * 20_000_000 + 1_000_000 + offset)
                return try OffsetSample.exchange(
                    source: "s", requestSent: sent, serverReceive: server, serverTransmit: server,
                    responseReceived: sent.advanced(by: .milliseconds(2)))
            }
        }
        let measurement = try HTTPTimeMeasurement(
            source: "s", scheme: .timeHeader, samples: try samples([0, 0, 0, lie]), requests: 5, rejected: 0)
        #expect(measurement.samples.count == 3 && measurement.outliers.count == 1)
        // θ = server − monotonic ∈ [θ₀ − 1 ms, θ₀ + 1 ms] for every honest sample.
        let truth: Int64 = 1_763_701_483_000_000_000
        #expect(measurement.calibration.offset.contains(truth))
        #expect(!measurement.calibration.offset.contains(truth + lie))
        expectThrows(HTTPTimeError.inconsistentSamples) {
            try HTTPTimeMeasurement(source: "s", scheme: .timeHeader, samples: try samples([lie, lie, 0, 0]), requests: 5, rejected: 0)
        }
    }
}
#endif
