#if NTPServer
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import TimeSync
import TimeSyncServerSupport
import TimeSyncWire

/// Where an ``NTPServer`` learns the state of the clock it serves: whether the host is synchronized,
/// how far off it may be, and any leap second armed.
///
/// ``SystemKernelClock`` asks the kernel; tests conform a type of their own to feed any state.
public protocol KernelClock: Sendable {
    /// The clock's state now, or `nil` when it cannot be read (the server then takes it to be
    /// `NTPClockState.unknown`: unsynchronized).
    func clockState() -> NTPClockState?
}
#endif
