#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import TimeSync

/// Why a time server (the SNTP server over UDP, the HTTP server over TCP) could not start serving
/// its address.
///
/// Match on ``code`` (`error.code == .addressInUse`); ``transport``, ``host`` and ``port`` say which
/// socket could not be bound.
public struct ServerBindError: CodedError {
    /// The kinds of failed bind.
    public enum Code: Sendable, Hashable {
        /// Another socket already serves the address and port.
        case addressInUse
        /// The port needs privileges this process does not have.
        case permissionDenied
        /// The address is not one of this host's.
        case addressNotAvailable
    }

    /// Which kind of failure this is.
    public let code: Code
    /// `UDP` or `TCP`.
    public let transport: String
    /// The address the server was to bind.
    public let host: String
    /// The port the server was to bind.
    public let port: Int

    init(_ code: Code, transport: String, host: String, port: Int) {
        self.code = code
        self.transport = transport
        self.host = host
        self.port = port
    }

    /// Another socket already serves the address and port: another process (chronyd, ntpd, another
    /// web server, a second `timesync serve`). The servers never share a port with `SO_REUSEPORT`:
    /// that would split the clients between the two without a word.
    public static let addressInUse = ServerBindError(.addressInUse, transport: "", host: "", port: 0)
    /// The port needs privileges this process does not have (below 1024 on most systems: NTP's 123,
    /// HTTP's 80).
    public static let permissionDenied = ServerBindError(.permissionDenied, transport: "", host: "", port: 0)
    /// The address is not one of this host's.
    public static let addressNotAvailable = ServerBindError(.addressNotAvailable, transport: "", host: "", port: 0)

    /// The error for a failed bind's `errno`, or `nil` for an errno that is none of these.
    package init?(errno: Int32, transport: String, host: String, port: Int) {
        switch errno {
        case EADDRINUSE: self.init(.addressInUse, transport: transport, host: host, port: port)
        case EACCES, EPERM: self.init(.permissionDenied, transport: transport, host: host, port: port)
        case EADDRNOTAVAIL: self.init(.addressNotAvailable, transport: transport, host: host, port: port)
        default: return nil
        }
    }

    public var description: String {
        switch code {
        case .addressInUse: "\(transport) port \(port) on \(host) is already in use by another process"
        case .permissionDenied: "this process may not bind \(transport) port \(port) on \(host): ports below 1024 need privileges"
        case .addressNotAvailable: "\(host) is not an address of this host: cannot bind \(transport) port \(port) on it"
        }
    }
}
