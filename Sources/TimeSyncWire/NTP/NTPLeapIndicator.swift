/// The leap indicator of an NTP packet: a warning of a leap second at the end of the day, or that
/// the sender's clock is not synchronized.
public enum NTPLeapIndicator: UInt8, Sendable, Hashable, Codable, CaseIterable {
    /// No leap second pending.
    case noWarning = 0
    /// The last minute of the day has 61 seconds.
    case lastMinuteHas61Seconds = 1
    /// The last minute of the day has 59 seconds.
    case lastMinuteHas59Seconds = 2
    /// The sender's clock is not synchronized (alarm condition).
    case unsynchronized = 3
}
