// Stand-in for Apple's Darwin module, for scripts/apple-typecheck: Glibc's POSIX API (re-exported),
// plus the Darwin-only declarations this package calls, and Darwin's own type where it differs from
// Glibc's in a way this package's code depends on. Declarations written from Apple's documentation and
// man pages (each names its page); not Apple's SDK: anything else Darwin declares differently from
// Glibc goes unnoticed.
@_exported import Glibc

// sysctlbyname(3): `int sysctlbyname(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen);`
// https://developer.apple.com/library/archive/documentation/System/Conceptual/ManPages_iPhoneOS/man3/sysctlbyname.3.html
public func sysctlbyname(
    _ name: UnsafePointer<CChar>!, _ oldp: UnsafeMutableRawPointer!, _ oldlenp: UnsafeMutablePointer<Int>!,
    _ newp: UnsafeMutableRawPointer!, _ newlen: Int
) -> Int32 { -1 }

// clock_gettime(3): `uint64_t clock_gettime_nsec_np(clockid_t clock_id);`, and the clock
// `CLOCK_MONOTONIC_RAW`. Darwin's `clockid_t` is an enumeration; Glibc's (an Int32), whose
// CLOCK_MONOTONIC_RAW this package's code passes the same way, stands in for it.
// https://developer.apple.com/library/archive/documentation/System/Conceptual/ManPages_iPhoneOS/man3/clock_gettime.3.html
public func clock_gettime_nsec_np(_ clock_id: clockid_t) -> UInt64 { 0 }

// fcntl(2): `F_FULLFSYNC` (51), "flush all data to permanent storage".
// https://developer.apple.com/library/archive/documentation/System/Conceptual/ManPages_iPhoneOS/man2/fcntl.2.html
public var F_FULLFSYNC: Int32 { 51 }

// getaddrinfo(3): the flags of <netdb.h> that Glibc lacks (`AI_V4MAPPED_CFG` 0x200, `AI_DEFAULT`).
// https://developer.apple.com/library/archive/documentation/System/Conceptual/ManPages_iPhoneOS/man3/getaddrinfo.3.html
public var AI_V4MAPPED_CFG: Int32 { 0x0000_0200 }
public var AI_DEFAULT: Int32 { AI_V4MAPPED_CFG | AI_ADDRCONFIG }

// socket(2): on Darwin the socket types are plain `Int32` macros (`var SOCK_DGRAM: Int32 { get }`);
// Glibc's are a `__socket_type` enumeration. These shadow Glibc's.
// https://developer.apple.com/library/archive/documentation/System/Conceptual/ManPages_iPhoneOS/man2/socket.2.html
public var SOCK_STREAM: Int32 { 1 }
public var SOCK_DGRAM: Int32 { 2 }
public var SOCK_RAW: Int32 { 3 }

// bind(2), <netinet/in.h>: BSD socket addresses start with their length, `__uint8_t sin_len` and
// `__uint8_t sin6_len`, which Glibc's structures lack (stored nowhere here: only their type matters).
// https://developer.apple.com/library/archive/documentation/System/Conceptual/ManPages_iPhoneOS/man2/bind.2.html
extension sockaddr_in {
    public var sin_len: UInt8 {
        get { UInt8(MemoryLayout<sockaddr_in>.size) }
        set {}
    }
}

extension sockaddr_in6 {
    public var sin6_len: UInt8 {
        get { UInt8(MemoryLayout<sockaddr_in6>.size) }
        set {}
    }
}
