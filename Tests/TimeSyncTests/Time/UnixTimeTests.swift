import Foundation
import Testing
import TimeSync

@Suite struct UnixTimeTests {
    @Test(arguments: [
        (Int64(0), "1970-01-01T00:00:00.000Z"),
        (1_767_225_600_123_000_000, "2026-01-01T00:00:00.123Z"),
        (-1_000_000, "1969-12-31T23:59:59.999Z"),
        (951_782_400_000_000_000, "2000-02-29T00:00:00.000Z"),
        (2_085_978_496_000_000_000, "2036-02-07T06:28:16.000Z"),
    ])
    func description(nanoseconds: Int64, text: String) {
        #expect(UnixTime(nanoseconds: nanoseconds).description == text)
    }

    @Test func wholeUnitsRoundTowardNegativeInfinity() {
        let t = UnixTime(nanoseconds: -1)
        #expect(t.seconds == -1)
        #expect(t.milliseconds == -1)
        #expect(UnixTime(nanoseconds: 1_999_999_999).seconds == 1)
        #expect(UnixTime(milliseconds: 1_500).nanoseconds == 1_500_000_000)
    }

    @Test func civilDateRoundTrip() {
        for days in stride(from: Int64(-800_000), through: 800_000, by: 997) {
            let (y, m, d) = CivilDate.fromDays(days)
            #expect(CivilDate.days(year: y, month: m, day: d) == days)
            #expect((1...CivilDate.daysInMonth(year: y, month: m)).contains(d))
        }
    }

    /// Times as `watch --deadline` takes them, to the nanosecond: never through a `Double`, which
    /// keeps about sixteen digits, nor Foundation's ISO 8601 parser, which keeps milliseconds.
    @Test(arguments: [
        ("1782000000", Int64(1_782_000_000_000_000_000)),
        ("1782000000.123456789", 1_782_000_000_123_456_789),
        ("-6999999999", -6_999_999_999_000_000_000),
        ("-0.000000001", -1),
        ("+12.5", 12_500_000_000),
        (".25", 250_000_000),
        ("1.0000000005", 1_000_000_001),
        ("1.78e9", 1_780_000_000_000_000_000),
        ("2026-11-26T08:00:00Z", 1_795_680_000_000_000_000),
        ("2026-11-26T08:00:00.123456789Z", 1_795_680_000_123_456_789),
        ("2026-11-26T08:00:00.5z", 1_795_680_000_500_000_000),
        ("2026-11-26T09:00:00.000000001+01:00", 1_795_680_000_000_000_001),
        ("2026-11-26T07:30:00-0030", 1_795_680_000_000_000_000),
        ("1748-03-06T11:33:21Z", -6_999_999_999_000_000_000),
    ])
    func parsing(text: String, nanoseconds: Int64) {
        #expect(UnixTime(parsing: text) == UnixTime(nanoseconds: nanoseconds), "\(text)")
    }

    @Test(arguments: [
        "", "-", ".", "1.", "1..2", "12a", "7000000000", "-7000000000.5", "inf", "nan", "1e20", "2026-11-26", "2026-11-26T08:00:00",
        "2026-13-01T00:00:00Z", "2026-02-30T00:00:00Z", "2026-11-26T24:00:00Z", "2026-11-26T08:00:00.Z", "2026-11-26T08:00:00+1:00",
        "2026-11-26T08:00:00Zjunk", "2500-01-01T00:00:00Z",
    ])
    func notATime(text: String) {
        #expect(UnixTime(parsing: text) == nil, "\(text)")
    }

    @Test func instantArithmetic() {
        let t = UnixTime(seconds: 100)
        #expect(t.advanced(by: .milliseconds(1500)) == UnixTime(nanoseconds: 101_500_000_000))
        #expect(t.duration(to: UnixTime(seconds: 98)) == .seconds(-2))
        #expect(UnixTime(t.date) == t)
        #expect(UnixTime(nanoseconds: .max).advanced(by: .seconds(1)) == UnixTime(nanoseconds: .max))
    }
}
