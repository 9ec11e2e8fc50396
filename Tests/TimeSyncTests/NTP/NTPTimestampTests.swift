import Testing
import TimeSync
import TimeSyncWire
import TimeSyncTesting

@Suite struct NTPTimestampTests {
    @Test func unixEpochIsNTPSeconds2208988800() {
        let stamp = NTPTimestamp(UnixTime(nanoseconds: 0))
        #expect(stamp.seconds == 2_208_988_800)
        #expect(stamp.fraction == 0)
        #expect(stamp.rawValue == 2_208_988_800 << 32)
    }

    @Test func halfSecondIsHalfTheFraction() {
        let stamp = NTPTimestamp(UnixTime(seconds: 1, nanoseconds: 500_000_000))
        #expect(stamp.fraction == 0x8000_0000)
        #expect(stamp.seconds == 2_208_988_801)
    }

    @Test(arguments: [Int64(0), 1, 999_999_999, 1_700_000_000_123_456_789, -1, 2_085_978_495_999_999_999, 2_085_978_496_000_000_001])
    func nanosecondsRoundTripExactly(_ nanoseconds: Int64) {
        let time = UnixTime(nanoseconds: nanoseconds)
        #expect(NTPTimestamp(time).unixTime(near: time) == time)
    }

    @Test func roundTripOverManySeededValues() {
        var generator = SeededGenerator(seed: 42)
        for _ in 0..<10_000 {
            let time = UnixTime(nanoseconds: Int64.random(in: -2_000_000_000_000_000_000...4_000_000_000_000_000_000, using: &generator))
            #expect(NTPTimestamp(time).unixTime(near: time) == time)
        }
    }

    /// 2036-02-07T06:28:16Z: NTP era 0 ends and the seconds field wraps to 0.
    static let rollover = UnixTime(seconds: 2_085_978_496)

    @Test func eraRollsOverIn2036() {
        #expect(NTPTimestamp.era(of: Self.rollover.advanced(by: .seconds(-1))) == 0)
        #expect(NTPTimestamp.era(of: Self.rollover) == 1)
        #expect(NTPTimestamp(Self.rollover) == NTPTimestamp(seconds: 0, fraction: 0))
        #expect(NTPTimestamp(Self.rollover.advanced(by: .seconds(-1))).seconds == .max)
        #expect(NTPTimestamp.era(of: UnixTime(seconds: -2_208_988_801)) == -1)
    }

    @Test func timestampsAcrossTheRolloverDecodeNearThePivot() {
        let before = NTPTimestamp(seconds: .max, fraction: 0)  // 2036-02-07T06:28:15Z in era 0
        let after = NTPTimestamp(seconds: 10, fraction: 0)  // 2036-02-07T06:28:26Z in era 1
        for pivot in [Self.rollover.advanced(by: .seconds(-5)), Self.rollover.advanced(by: .seconds(5))] {
            #expect(before.unixTime(near: pivot) == Self.rollover.advanced(by: .seconds(-1)))
            #expect(after.unixTime(near: pivot) == Self.rollover.advanced(by: .seconds(10)))
        }
        // Far from the rollover the same bits mean the start of era 0 or of era 1.
        #expect(after.unixTime(era: 0) == UnixTime(seconds: 10 - 2_208_988_800))
        #expect(after.unixTime(near: UnixTime(seconds: 2_100_000_000)) == Self.rollover.advanced(by: .seconds(10)))
        #expect(after.unixTime(near: UnixTime(seconds: -2_100_000_000)) == UnixTime(seconds: 10 - 2_208_988_800))
    }

    @Test func decodingPicksTheEraWithin68YearsOfThePivot() {
        let pivot = UnixTime(seconds: 1_800_000_000)
        let farAhead = pivot.advanced(by: .seconds(Int64(Int32.max) - 10))
        let farBehind = pivot.advanced(by: .seconds(-(Int64(Int32.max) - 10)))
        #expect(NTPTimestamp(farAhead).unixTime(near: pivot) == farAhead)
        #expect(NTPTimestamp(farBehind).unixTime(near: pivot) == farBehind)
    }

    @Test func shortFormatRoundsUpAndRoundTrips() {
        #expect(NTPShortFormat(.milliseconds(1500)).rawValue == 0x0001_8000)
        #expect(NTPShortFormat(rawValue: 0x0001_8000).duration == .milliseconds(1500))
        #expect(NTPShortFormat(.nanoseconds(2)).rawValue == 1)  // rounded up, not down to zero
        #expect(NTPShortFormat(.seconds(-3)).rawValue == 0)
        #expect(NTPShortFormat(.seconds(70_000)).rawValue == .max)
        #expect(NTPShortFormat(rawValue: 1).duration == .nanoseconds(15_259))  // 2⁻¹⁶ s rounded up
        var generator = SeededGenerator(seed: 7)
        for _ in 0..<1000 {
            let raw = UInt32.random(in: 0...UInt32.max, using: &generator)
            #expect(NTPShortFormat(NTPShortFormat(rawValue: raw).duration).rawValue == raw)
        }
    }
}
