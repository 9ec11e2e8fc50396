/// An IP address and a port: where a datagram goes.
public struct IPEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// The address.
    public var address: IPAddress
    /// The port, 0–65535.
    public var port: UInt16
    /// The interface of an IPv6 link-local address (`fe80::1%eth0`), 0 for none.
    public var scopeID: UInt32

    /// Creates an endpoint.
    public init(address: IPAddress, port: UInt16, scopeID: UInt32 = 0) {
        self.address = address
        self.port = port
        self.scopeID = scopeID
    }

    /// An endpoint from an IP literal and a port.
    /// - Returns: `nil` when `host` is not an IP literal (see ``IPAddress/init(_:)``) or the port is
    ///   outside 0–65535.
    public init?(host: String, port: Int) {
        guard let address = IPAddress(host), let port = UInt16(exactly: port) else { return nil }
        self.init(address: address, port: port)
    }

    /// `ip:port`, with an IPv6 address in brackets (`[::1]:123`).
    public var description: String { HostPort.format(host: address.description, port: Int(port)) }
}
