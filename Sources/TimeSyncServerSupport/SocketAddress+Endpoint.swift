#if NTPServer || NTS || RoughtimeServer
import Logging
import NIOCore
import TimeSync
import TimeSyncWire

extension SocketAddress {
    /// `ip:port`, with brackets around an IPv6 address: how logs and errors print it.
    package var endpoint: String {
        guard let ip = ipAddress else { return "\(self)" }
        return HostPort.format(host: ip, port: self.port ?? 0)
    }
}

extension IPEndpoint {
    /// The endpoint of a SwiftNIO socket address (a server's bound address, say), for a client.
    /// - Returns: `nil` for an address that is not IPv4 or IPv6 (a Unix domain socket).
    package init?(_ address: SocketAddress) {
        guard let ip = address.ipAddress, let port = address.port, let parsed = IPEndpoint(host: ip, port: port) else { return nil }
        self = parsed
        if case .v6(let v6) = address { scopeID = v6.address.sin6_scope_id }
    }
}

#endif
