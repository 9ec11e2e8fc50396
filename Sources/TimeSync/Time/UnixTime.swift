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
