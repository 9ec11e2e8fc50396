import Foundation

/// A point on the UTC timeline, as nanoseconds since 1970-01-01T00:00:00Z (leap seconds not counted).
///
/// TimeSync uses one type for every wall-clock reading — the server's time (`serverTime`) and the
/// device's own wall clock (`deviceTime`) — and the name of the value says which clock it came from.
/// It is also the `Instant` of ``ServerClock``. The range (±292 years around 1970) covers every date
/// an app schedules.
public struct UnixTime: Sendable, Hashable, Comparable, Codable {
    /// Nanoseconds since the Unix epoch.
    public var nanoseconds: Int64

    /// Creates a time from nanoseconds since the Unix epoch.
    @inlinable
    public init(nanoseconds: Int64) {
        self.nanoseconds = nanoseconds
    }

    /// Creates a time from whole and fractional seconds since the Unix epoch, saturating at the ends
    /// of the representable range (1677-09-21 to 2262-04-11).
    public init(seconds: Int64, nanoseconds: Int64 = 0) {
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        self.nanoseconds = overflow ? (seconds < 0 ? .min : .max) : whole.saturatingAdd(nanoseconds)
    }

    /// Creates a time from milliseconds since the Unix epoch (a millisecond `Response-Timestamp`
    /// header), saturating at the ends of the representable range.
    public init(milliseconds: Int64) {
        let (whole, overflow) = milliseconds.multipliedReportingOverflow(by: 1_000_000)
        self.nanoseconds = overflow ? (milliseconds < 0 ? .min : .max) : whole
    }

    /// Creates a time from a Foundation `Date`, rounded to the nearest nanosecond and saturating at
    /// the ends of the representable range (`Date.distantFuture` is 2262-04-11).
    public init(_ date: Date) {
        self.nanoseconds = Int64(clamping: date.timeIntervalSince1970 * 1e9)
    }

    /// Whole seconds since the epoch, rounded toward negative infinity.
    @inlinable
    public var seconds: Int64 { nanoseconds.flooredDivision(by: 1_000_000_000) }

    /// Whole milliseconds since the epoch, rounded toward negative infinity.
    @inlinable
    public var milliseconds: Int64 { nanoseconds.flooredDivision(by: 1_000_000) }

    /// Seconds since the epoch as a floating-point value (microsecond precision in this century).
    public var secondsSince1970: Double { Double(nanoseconds) / 1e9 }

    /// The same point as a Foundation `Date`.
    public var date: Date { Date(timeIntervalSince1970: secondsSince1970) }

    @inlinable
    public static func < (lhs: UnixTime, rhs: UnixTime) -> Bool { lhs.nanoseconds < rhs.nanoseconds }
}

extension UnixTime: InstantProtocol {
    /// Moves the time by a duration (saturating at the ends of the range).
    public func advanced(by duration: Duration) -> UnixTime {
        UnixTime(nanoseconds: nanoseconds.saturatingAdd(duration.nanosecondsClamped))
    }

    /// The duration from this time to another.
    public func duration(to other: UnixTime) -> Duration {
        .nanoseconds(other.nanoseconds.saturatingSubtract(nanoseconds))
    }
}

extension UnixTime: CustomStringConvertible {
    /// ISO 8601 with milliseconds, in UTC: `2026-11-21T05:00:00.123Z`.
    public var description: String {
        let ns = nanoseconds.flooredModulo(1_000_000_000)
        let seconds = self.seconds
        let days = seconds.flooredDivision(by: 86_400)
        let secondOfDay = seconds - days * 86_400
        let (y, m, d) = CivilDate.fromDays(days)
        return String(
            format: "%04lld-%02d-%02dT%02lld:%02lld:%02lld.%03lldZ",
            y, m, d, secondOfDay / 3600, (secondOfDay / 60) % 60, secondOfDay % 60, ns / 1_000_000)
    }
}

/// Proleptic Gregorian calendar arithmetic on days since the Unix epoch (Howard Hinnant's algorithms).
/// The one home for calendar math: HTTP dates and printing use it.
public enum CivilDate {
    /// Days since 1970-01-01 for a year, month (1–12) and day (1–31).
    public static func days(year: Int64, month: Int, day: Int) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = y.flooredDivision(by: 400)
        let yoe = y - era * 400
        let mp = Int64((month + 9) % 12)
        let doy = (153 * mp + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// Year, month (1–12) and day (1–31) for days since 1970-01-01.
    public static func fromDays(_ days: Int64) -> (year: Int64, month: Int, day: Int) {
        let z = days + 719_468
        let era = z.flooredDivision(by: 146_097)
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = Int(doy - (153 * mp + 2) / 5 + 1)
        let m = Int(mp < 10 ? mp + 3 : mp - 9)
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    /// The number of days in a month of a year.
    public static func daysInMonth(year: Int64, month: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}
