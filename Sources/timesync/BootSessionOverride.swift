import Foundation
import TimeSync

/// The system's clocks with the boot session identifier taken from `TIMESYNC_BOOT_SESSION_ID` when it
/// is set: what lets a test (or a support engineer) show what `watch --store` does after a reboot
/// without rebooting. Without the variable, the system's time base as it is.
struct BootSessionOverride: TimeBase {
    let bootSessionID: String?
    private let base = SystemTimeBase()

    /// The time base `watch` runs on.
    static func timeBase() -> any TimeBase {
        guard let id = ProcessInfo.processInfo.environment["TIMESYNC_BOOT_SESSION_ID"], !id.isEmpty, id.utf8.count <= 128 else {
            return SystemTimeBase()
        }
        // A leftover variable would make every store pass as this boot's: say so each time.
        FileHandle.standardError.write(Data(
            "timesync: warning: TIMESYNC_BOOT_SESSION_ID replaces this system's boot session (\(id)): a store is taken as this boot's only if it names the same value; unset it outside tests\n".utf8))
        return BootSessionOverride(bootSessionID: id)
    }

    func monotonicNow() -> MonotonicInstant { base.monotonicNow() }
    func wallNow() -> UnixTime { base.wallNow() }
    func sleep(until deadline: MonotonicInstant) async throws { try await base.sleep(until: deadline) }
    func sleep(until deadline: MonotonicInstant, tolerance: Duration) async throws {
        try await base.sleep(until: deadline, tolerance: tolerance)
    }
}
