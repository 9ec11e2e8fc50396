import TimeSync

/// A 64-bit NTP timestamp: seconds since the start of the current NTP era (the first began
/// 1900-01-01T00:00:00Z) and a binary fraction of a second (RFC 5905 §6).
///
/// The wire format carries no era: 32 bits of seconds wrap every 136 years, next on
/// 2036-02-07T06:28:16Z. ``unixTime(near:)`` puts a timestamp into the era closest to a pivot (the
/// local wall clock), which is right whenever the two clocks are within 68 years of each other.
/// This type is the one home of NTP timestamp conversions.
public struct NTPTimestamp: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Whole seconds since the start of the era.
    public var seconds: UInt32
    /// Fraction of a second, in units of 2⁻³² s (about 233 ps).
    public var fraction: UInt32

    /// Seconds from the NTP prime epoch (1900-01-01) to the Unix epoch (1970-01-01).
    public static let unixEpochOffset: Int64 = 2_208_988_800

    /// The all-zero timestamp, which NTP uses for "unknown" or "not set".
    public static let zero = NTPTimestamp(seconds: 0, fraction: 0)

    /// Creates a timestamp from its two 32-bit halves.
    @inlinable
    public init(seconds: UInt32, fraction: UInt32) {
        self.seconds = seconds
        self.fraction = fraction
    }

    /// Creates a timestamp from its 64-bit wire value (seconds in the high half).
    @inlinable
    public init(rawValue: UInt64) {
        seconds = UInt32(truncatingIfNeeded: rawValue >> 32)
        fraction = UInt32(truncatingIfNeeded: rawValue)
    }

    /// The 64-bit wire value: seconds in the high half, fraction in the low half.
    @inlinable
    public var rawValue: UInt64 { UInt64(seconds) << 32 | UInt64(fraction) }

    /// Whether this is the all-zero timestamp.
    @inlinable
    public var isZero: Bool { seconds == 0 && fraction == 0 }

    /// The timestamp of a point in time, rounded to the nearest 2⁻³² s; the era is dropped.
    public init(_ time: UnixTime) {
        let (ntpSeconds, nanoseconds) = Self.ntpSecondsAndNanoseconds(time)
        var fraction = (UInt64(nanoseconds) << 32 + 500_000_000) / 1_000_000_000
        var seconds = ntpSeconds
        if fraction == 1 << 32 {
            fraction = 0
            seconds += 1
        }
        self.seconds = UInt32(truncatingIfNeeded: seconds)
        self.fraction = UInt32(truncatingIfNeeded: fraction)
    }

    /// The era (136-year period since 1900) a point in time falls in: 0 until 2036-02-07T06:28:16Z,
    /// 1 after it, −1 before 1900.
    public static func era(of time: UnixTime) -> Int64 {
        ntpSecondsAndNanoseconds(time).seconds >> 32
    }

    /// The point in time this timestamp denotes in a given era.
    public func unixTime(era: Int64) -> UnixTime {
        Self.unixTime(ntpSeconds: (era << 32).saturatingAdd(Int64(seconds)), fraction: fraction)
    }

    /// The point in time this timestamp denotes in the era that puts it closest to `pivot`
    /// (within ±2³¹ s ≈ 68 years of it).
    ///
    /// Pass the local wall clock as the pivot: a server's timestamp then decodes correctly across
    /// the 2036 rollover as long as the two clocks differ by less than 68 years.
    public func unixTime(near pivot: UnixTime) -> UnixTime {
        let pivotSeconds = Self.ntpSecondsAndNanoseconds(pivot).seconds
        let difference = Int32(bitPattern: seconds &- UInt32(truncatingIfNeeded: pivotSeconds))
        return Self.unixTime(ntpSeconds: pivotSeconds + Int64(difference), fraction: fraction)
    }

    /// `seconds.fraction` in hexadecimal, as `ntpq` and Wireshark print timestamps.
    public var description: String {
        let hex = { (v: UInt32) -> String in
            let s = String(v, radix: 16)
            return String(repeating: "0", count: 8 - s.count) + s
        }
        return "\(hex(seconds)).\(hex(fraction))"
    }

    /// Seconds since 1900 (any era, may be negative) and the nanoseconds within that second.
    static func ntpSecondsAndNanoseconds(_ time: UnixTime) -> (seconds: Int64, nanoseconds: Int64) {
        (time.seconds + unixEpochOffset, time.nanoseconds.flooredModulo(1_000_000_000))
    }

    static func unixTime(ntpSeconds: Int64, fraction: UInt32) -> UnixTime {
        // Round to the nearest nanosecond: exact inverse of `init(_:)` since 2⁻³² s < 0.5 ns.
        let nanoseconds = Int64((UInt64(fraction) &* 1_000_000_000 &+ (1 << 31)) >> 32)
        let unixSeconds = ntpSeconds - unixEpochOffset
        let (whole, overflow) = unixSeconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return UnixTime(nanoseconds: unixSeconds > 0 ? .max : .min) }
        return UnixTime(nanoseconds: whole.saturatingAdd(nanoseconds))
    }
}
