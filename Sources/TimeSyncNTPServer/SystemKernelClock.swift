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

/// The host's kernel clock discipline, read with `ntp_adjtime` (Linux's `adjtimex` with the same
/// `struct timex`; the BSDs' and macOS's `ntp_adjtime`), with `modes` zero: it only reads, never
/// sets anything, and needs no privilege.
///
/// The C library does not export `struct timex` to Swift, so the call is looked up once with
/// `dlsym` and its fields read at their offsets, which are the same on 64-bit Linux (glibc and
/// musl) and 64-bit Darwin: `maxerror` at 24, `esterror` at 32, `status` at 40. Elsewhere (32-bit
/// platforms) and when the call is missing or fails, the state is `nil`: unknown.
public struct SystemKernelClock: KernelClock {
    /// Creates the reader.
    public init() {}

    public func clockState() -> NTPClockState? {
        #if _pointerBitWidth(_64) && (os(Linux) || canImport(Darwin))
        guard let adjust = Self.ntpAdjtime else { return nil }
        // Larger than either platform's struct timex (208 bytes on Linux, 136 on Darwin), zeroed:
        // modes = 0 asks for nothing to be changed.
        return withUnsafeTemporaryAllocation(byteCount: 256, alignment: 16) { buffer -> NTPClockState? in
            guard let base = buffer.baseAddress else { return nil }
            base.initializeMemory(as: UInt8.self, repeating: 0, count: buffer.count)
            let state = adjust(base)
            guard state >= 0 else { return nil }
            return NTPClockState(
                status: buffer.load(fromByteOffset: 40, as: Int32.self), state: state,
                maximumErrorMicroseconds: Int64(buffer.load(fromByteOffset: 24, as: Int.self)),
                estimatedErrorMicroseconds: Int64(buffer.load(fromByteOffset: 32, as: Int.self)))
        }
        #else
        return nil
        #endif
    }

    #if _pointerBitWidth(_64) && (os(Linux) || canImport(Darwin))
    /// `int ntp_adjtime(struct timex *)`, looked up once.
    private static let ntpAdjtime: (@convention(c) (UnsafeMutableRawPointer) -> Int32)? = {
        #if canImport(Darwin)
        let handle = UnsafeMutableRawPointer(bitPattern: -2)  // RTLD_DEFAULT
        #else
        let handle: UnsafeMutableRawPointer? = nil  // RTLD_DEFAULT
        #endif
        guard let symbol = dlsym(handle, "ntp_adjtime") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutableRawPointer) -> Int32).self)
    }()
    #endif
}
#endif
