#if NTPServer
import Logging
import NIOCore
import TimeSync

extension SocketAddress {
    /// `ip:port`, with brackets around an IPv6 address: how logs and errors print it.
    package var endpoint: String {
        guard let ip = ipAddress else { return "\(self)" }
        return HostPort.format(host: ip, port: self.port ?? 0)
    }
}

extension IPEndpoint {
    /// The endpoint of a SwiftNIO socket address (a server's bound address, say), for the NTP client.
    /// - Returns: `nil` for an address that is not IPv4 or IPv6 (a Unix domain socket).
    public init?(_ address: SocketAddress) {
        guard let ip = address.ipAddress, let port = address.port, let parsed = IPEndpoint(host: ip, port: port) else { return nil }
        self = parsed
        if case .v6(let v6) = address { scopeID = v6.address.sin6_scope_id }
    }
}

extension Logger {
    /// The default logger of the NTP server: discards everything. Pass your own to see its logs.
    @usableFromInline static let ntpNoOp = Logger(label: "timesync.ntp", factory: { _ in SwiftLogNoOpLogHandler() })
}
#endif
