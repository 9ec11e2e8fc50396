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

    @Test func instantArithmetic() {
        let t = UnixTime(seconds: 100)
        #expect(t.advanced(by: .milliseconds(1500)) == UnixTime(nanoseconds: 101_500_000_000))
        #expect(t.duration(to: UnixTime(seconds: 98)) == .seconds(-2))
        #expect(UnixTime(t.date) == t)
        #expect(UnixTime(nanoseconds: .max).advanced(by: .seconds(1)) == UnixTime(nanoseconds: .max))
    }
}
