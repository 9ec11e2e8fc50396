#if Hummingbird
import NIOCore
import TimeSync
import TimeSyncServerSupport

/// Whom an HTTP connection counts against for ``HTTPConnectionLimits/maximumConnectionsPerAddress``.
package typealias HTTPClientAddress = ConnectionClientAddress

/// The open connections of one HTTP server: the caps of ``HTTPConnectionLimits``; a connection
/// waiting for a request is the one closed to make room.
package typealias HTTPConnectionTable = ConnectionTable

extension ConnectionClientAddress {
    /// The client of a channel's remote address, an IPv6 client by its first `ipv6PrefixLength`
    /// bits; `nil` for a Unix domain socket or no address.
    package init?(_ address: SocketAddress?, ipv6PrefixLength: Int = ClientPrefix.defaultIPv6Length) {
        guard let client = address?.withSockAddr({ ConnectionClientAddress(sockaddr: $0, length: $1, ipv6PrefixLength: ipv6PrefixLength) }) else { return nil }
        self = client
    }
}

extension ConnectionTable {
    /// An empty table with the limits' caps.
    package init(limits: HTTPConnectionLimits) {
        self.init(maximumConnections: limits.maximumConnections, maximumConnectionsPerAddress: limits.maximumConnectionsPerAddress)
    }
}
#endif
