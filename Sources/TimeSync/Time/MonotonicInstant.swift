/// A reading of the device's monotonic clock, in nanoseconds since an unspecified origin (boot).
///
/// The clock keeps counting while the device sleeps (`CLOCK_BOOTTIME` on Linux, continuous time on
/// Apple platforms) and ignores wall-clock changes. Readings are comparable only within one boot
/// session; ``TimeBase/bootSessionID`` tells sessions apart.
public struct MonotonicInstant: Sendable, Hashable, Comparable, Codable, InstantProtocol {
    /// Nanoseconds since the clock's origin.
    public var nanoseconds: Int64

    /// Creates an instant from nanoseconds since the clock's origin.
    @inlinable
    public init(nanoseconds: Int64) {
        self.nanoseconds = nanoseconds
    }

    @inlinable
    public static func < (lhs: MonotonicInstant, rhs: MonotonicInstant) -> Bool {
        lhs.nanoseconds < rhs.nanoseconds
    }

    /// This instant moved by a duration.
    @inlinable
    public func advanced(by duration: Duration) -> MonotonicInstant {
        MonotonicInstant(nanoseconds: nanoseconds.saturatingAdd(duration.nanosecondsClamped))
    }

    /// The duration from this instant to another.
    @inlinable
    public func duration(to other: MonotonicInstant) -> Duration {
        .nanoseconds(other.nanoseconds.saturatingSubtract(nanoseconds))
    }
}
