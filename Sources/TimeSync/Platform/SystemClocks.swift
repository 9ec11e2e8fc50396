#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Raw reads of the system clocks: the only place that names platform clock ids.
@usableFromInline
package enum SystemClocks {
    /// Nanoseconds on the monotonic clock that counts through sleep.
    @inlinable
    package static func monotonicNanoseconds() -> Int64 {
        #if canImport(Darwin)
        return Int64(clock_gettime_nsec_np(CLOCK_MONOTONIC_RAW))
        #else
        var ts = timespec()
        clock_gettime(CLOCK_BOOTTIME, &ts)
        return Int64(ts.tv_sec) &* 1_000_000_000 &+ Int64(ts.tv_nsec)
        #endif
    }

    /// Nanoseconds since the Unix epoch on the wall clock.
    @inlinable
    package static func wallNanoseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) &* 1_000_000_000 &+ Int64(ts.tv_nsec)
    }
}
