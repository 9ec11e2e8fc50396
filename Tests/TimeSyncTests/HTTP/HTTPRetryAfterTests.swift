import Testing
import TimeSync
import TimeSyncWire
import TimeSyncFixtures

/// `Retry-After` values, honest and hostile: every wait within 0 … one day, bad input a typed error.
@Suite("Retry-After")
struct HTTPRetryAfterTests {
    /// Sun, 06 Nov 1994 08:49:37 GMT.
    static let now = UnixTime(seconds: 784_111_777)

    @Test(
        "delta-seconds and HTTP-dates give the wait, clamped to 0 … one day",
        arguments: [
            ("120", Duration.seconds(120)),
            ("0", .zero),
            (" 3600\t", .seconds(3600)),
            ("86400", .seconds(86_400)),
            ("86401", .seconds(86_400)),
            ("99999999999999999999999999999999", .seconds(86_400)),
            ("000000000000000000000000000000007", .seconds(7)),
            ("Sun, 06 Nov 1994 08:50:37 GMT", .seconds(60)),
            ("Sunday, 06-Nov-94 08:51:37 GMT", .seconds(120)),
            ("Sun Nov  6 08:49:47 1994", .seconds(10)),
            ("Sun, 06 Nov 1994 08:49:37 GMT", .zero),
            ("Sat, 01 Jan 1994 00:00:00 GMT", .zero),
            ("Mon, 31 Dec 2260 23:59:59 GMT", .seconds(86_400)),
        ])
    func waits(value: String, expected: Duration) throws {
        #expect(try HTTPRetryAfter.parse(value, now: Self.now) == expected)
    }

    @Test(
        "anything else is a typed error",
        arguments: [
            ("", HTTPRetryAfterError.empty),
            ("   ", .empty),
            ("-5", .negative),
            ("-99999999999999999999", .negative),
            ("-", .malformed),
            ("+3", .malformed),
            ("1.5", .malformed),
            ("12 34", .malformed),
            ("soon", .malformed),
            ("0x10", .malformed),
            ("١٢", .malformed),
            ("Sun, 06 Nov 1994 08:49:37 UTC", .malformed),
            ("Mon, 06 Nov 1994 08:49:37 GMT", .malformed),
            ("\u{0}", .malformed),
        ])
    func errors(value: String, expected: HTTPRetryAfterError) {
        expectThrows(expected) { try HTTPRetryAfter.parse(value, now: Self.now) }
    }

    @Test("a malformed date says why")
    func malformedDateSaysWhy() {
        do {
            _ = try HTTPRetryAfter.parse("Mon, 06 Nov 1994 08:49:37 GMT", now: Self.now)
            Issue.record("a date with the wrong weekday parsed")
        } catch {
            #expect((error.underlying as? HTTPDateError)?.code == .weekdayMismatch)
            #expect(error.description.contains("day name does not match the date"))
        }
    }

    @Test("clamp keeps any wait within 0 … one day")
    func clamp() {
        #expect(HTTPRetryAfter.clamp(.seconds(-1)) == .zero)
        #expect(HTTPRetryAfter.clamp(.seconds(Int64.max)) == HTTPRetryAfter.maximum)
        #expect(HTTPRetryAfter.clamp(.milliseconds(1_500)) == .milliseconds(1_500))
        #expect(HTTPRetryAfter.maximum == .seconds(86_400))
    }
}
