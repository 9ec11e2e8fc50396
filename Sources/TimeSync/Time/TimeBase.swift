/// The clocks a ``ServerClock`` stands on: a monotonic clock that counts through sleep, the device's
/// wall clock, and a way to sleep on the monotonic clock.
///
/// ``SystemTimeBase`` reads the real clocks; ``ManualTimeBase`` lets tests and simulations move time
/// by hand. A library never reads a clock on its own: pass a time base in.
public protocol TimeBase: Sendable {
    /// The monotonic clock: counts through device sleep, ignores wall-clock changes.
    func monotonicNow() -> MonotonicInstant
    /// The device's wall clock (which the user can change at any time).
    func wallNow() -> UnixTime
    /// Suspends until the monotonic clock reaches `deadline`.
    /// - Throws: `CancellationError` when the task is cancelled.
    func sleep(until deadline: MonotonicInstant) async throws
    /// An identifier of the current boot session, or `nil` when the platform gives none.
    /// Monotonic readings are comparable only while it stays the same.
    var bootSessionID: String? { get }
}

/// The real clocks of this device.
///
/// - Monotonic: `CLOCK_BOOTTIME` on Linux, `CLOCK_MONOTONIC_RAW` (continuous time) on Apple platforms.
/// - Wall: `CLOCK_REALTIME`.
/// - Boot session: `/proc/sys/kernel/random/boot_id` on Linux, `kern.bootsessionuuid` on Apple platforms.
public struct SystemTimeBase: TimeBase {
    /// Creates the system time base.
    public init() {}

    @inlinable
    public func monotonicNow() -> MonotonicInstant {
        MonotonicInstant(nanoseconds: SystemClocks.monotonicNanoseconds())
    }

    @inlinable
    public func wallNow() -> UnixTime {
        UnixTime(nanoseconds: SystemClocks.wallNanoseconds())
    }

    public func sleep(until deadline: MonotonicInstant) async throws {
        // Relative sleeps on the continuous clock, re-checked against the boot clock, so a
        // suspension or a late wake-up never makes us wake early.
        while true {
            let remaining = deadline.nanoseconds - SystemClocks.monotonicNanoseconds()
            if remaining <= 0 { return }
            try await Task.sleep(for: .nanoseconds(remaining), tolerance: .zero, clock: .continuous)
        }
    }

    public var bootSessionID: String? { BootSession.currentID }
}
