import NIOCore
import NIOPosix

/// Resolves host names to every IPv4 and IPv6 address (A and AAAA records) with `getaddrinfo`,
/// off the cooperative thread pool.
enum NTPResolver {
    /// All addresses of `host` for `port`, IPv4 and IPv6, in resolver order without duplicates.
    /// An IP literal resolves to itself without a lookup.
    /// - Throws: ``NTPClientError`` `.dnsFailure` or `.noAddresses`.
    static func resolve(host: String, port: Int) async throws -> [SocketAddress] {
        if let literal = try? SocketAddress(ipAddress: host, port: port) { return [literal] }
        let addresses = try await NIOThreadPool.singleton.runIfActive {
            try blockingResolve(host: host, port: port)
        }
        guard !addresses.isEmpty else { throw NTPClientError(.noAddresses, host) }
        return addresses
    }

    private static func blockingResolve(host: String, port: Int) throws -> [SocketAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Darwin)
        hints.ai_socktype = SOCK_DGRAM
        #else
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        #endif
        var result: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &result)
        guard status == 0 else {
            let message = String(cString: gai_strerror(status))
            throw NTPClientError(.dnsFailure, "\(host): \(message)")
        }
        defer { freeaddrinfo(result) }
        var addresses: [SocketAddress] = []
        var cursor = result
        while let info = cursor {
            defer { cursor = info.pointee.ai_next }
            guard let raw = info.pointee.ai_addr else { continue }
            let address: SocketAddress
            switch info.pointee.ai_family {
            case AF_INET:
                address = raw.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { SocketAddress($0.pointee, host: host) }
            case AF_INET6:
                address = raw.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { SocketAddress($0.pointee, host: host) }
            default:
                continue
            }
            if !addresses.contains(address) { addresses.append(address) }
        }
        return addresses
    }
}
