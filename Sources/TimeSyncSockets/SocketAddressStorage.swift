#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import TimeSync
import TimeSyncWire

/// An ``IPEndpoint`` as the system's `sockaddr_in` / `sockaddr_in6`, and back.
struct SocketAddressStorage {
    private var storage = sockaddr_storage()
    private let length: socklen_t

    init(_ endpoint: IPEndpoint) {
        var storage = sockaddr_storage()
        switch endpoint.address.family {
        case .v4:
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = endpoint.port.bigEndian
            withUnsafeMutableBytes(of: &address.sin_addr) { $0.copyBytes(from: endpoint.address.bytes) }
            #if canImport(Darwin)
            address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
            #endif
            withUnsafeMutableBytes(of: &storage) { raw in withUnsafeBytes(of: address) { raw.copyMemory(from: $0) } }
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
        case .v6:
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = endpoint.port.bigEndian
            address.sin6_scope_id = endpoint.scopeID
            withUnsafeMutableBytes(of: &address.sin6_addr) { $0.copyBytes(from: endpoint.address.bytes) }
            #if canImport(Darwin)
            address.sin6_len = UInt8(MemoryLayout<sockaddr_in6>.size)
            #endif
            withUnsafeMutableBytes(of: &storage) { raw in withUnsafeBytes(of: address) { raw.copyMemory(from: $0) } }
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
        }
        self.storage = storage
    }

    /// Calls `body` with the address as a `sockaddr` pointer and its length.
    func withSockaddr<Result>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result {
        withUnsafeBytes(of: storage) { raw in body(raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), length) }
    }

    /// The endpoint a resolver's `sockaddr` holds, or `nil` for a family other than IPv4 and IPv6.
    static func endpoint(_ address: UnsafePointer<sockaddr>) -> IPEndpoint? {
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                var copy = pointer.pointee
                let bytes = withUnsafeBytes(of: &copy.sin_addr) { Array($0) }
                return IPAddress(bytes: bytes).map { IPEndpoint(address: $0, port: UInt16(bigEndian: copy.sin_port)) }
            }
        case AF_INET6:
            return address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                var copy = pointer.pointee
                let bytes = withUnsafeBytes(of: &copy.sin6_addr) { Array($0) }
                return IPAddress(bytes: bytes).map {
                    IPEndpoint(address: $0, port: UInt16(bigEndian: copy.sin6_port), scopeID: copy.sin6_scope_id)
                }
            }
        default:
            return nil
        }
    }
}
