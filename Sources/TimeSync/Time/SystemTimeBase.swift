/// The real clocks of this device.
///
/// - Monotonic: `CLOCK_BOOTTIME` on Linux, `CLOCK_MONOTONIC_RAW` (continuous time) on Apple platforms.
/// - Wall: `CLOCK_REALTIME`.
/// - Boot session: `/proc/sys/kernel/random/boot_id` on Linux, `kern.bootsessionuuid` on Apple platforms.
package struct SystemTimeBase: TimeBase {
    /// Creates the system time base.
    package init() {}

    @inlinable
    package func monotonicNow() -> MonotonicInstant {
        MonotonicInstant(nanoseconds: SystemClocks.monotonicNanoseconds())
    }

    @inlinable
    package func wallNow() -> UnixTime {
        UnixTime(nanoseconds: SystemClocks.wallNanoseconds())
    }

    package func sleep(until deadline: MonotonicInstant) async throws {
        try await sleep(until: deadline, tolerance: .zero)
    }

    package func sleep(until deadline: MonotonicInstant, tolerance: Duration) async throws {
        // Relative sleeps on the continuous clock, re-checked against the boot clock, so a
        // suspension or a late wake-up never makes us wake early.
        let leeway = max(.zero, tolerance)
        while true {
            let remaining = deadline.nanoseconds - SystemClocks.monotonicNanoseconds()
            if remaining <= 0 { return }
            try await Task.sleep(for: .nanoseconds(remaining), tolerance: leeway, clock: .continuous)
        }
    }

    package var bootSessionID: String? { BootSession.currentID }
}
