import NIOCore
import TimeSync

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Why the HTTP time server could not start listening.
///
/// Errors compare equal when they are the same kind of failure (`error == .addressInUse`); the address
/// is not compared.
public struct HTTPServerError: Error, Sendable, Hashable, CustomStringConvertible {
    enum Code: Sendable, Hashable {
        case addressInUse, permissionDenied, addressNotAvailable
    }

    let code: Code
    /// The address the server was to bind.
    public let host: String
    /// The TCP port the server was to bind.
    public let port: Int

    init(_ code: Code, host: String, port: Int) {
        self.code = code
        self.host = host
        self.port = port
    }

    /// Another socket already listens on the address and port (another server, or a second
    /// `timesync serve`).
    public static let addressInUse = HTTPServerError(.addressInUse, host: "", port: 0)
    /// The port needs privileges this process does not have (below 1024 on most systems).
    public static let permissionDenied = HTTPServerError(.permissionDenied, host: "", port: 0)
    /// The address is not one of this host's.
    public static let addressNotAvailable = HTTPServerError(.addressNotAvailable, host: "", port: 0)

    /// Errors compare equal when they are the same kind of failure; the address is not compared.
    public static func == (lhs: HTTPServerError, rhs: HTTPServerError) -> Bool { lhs.code == rhs.code }

    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    public var description: String {
        let address = HostPort.format(host: host, port: port)
        switch code {
        case .addressInUse: return "TCP port \(port) on \(host) is already in use by another process (\(address))"
        case .permissionDenied: return "binding TCP port \(port) on \(host) needs privileges this process does not have"
        case .addressNotAvailable: return "\(host) is not an address of this host; cannot listen on \(address)"
        }
    }

    /// The server error behind a failed bind, or `nil` for any other error.
    /// - Parameters:
    ///   - error: What the server threw.
    ///   - host: The address it was to bind.
    ///   - port: The port it was to bind.
    static func binding(_ error: any Error, host: String, port: Int) -> HTTPServerError? {
        guard let error = error as? IOError else { return nil }
        switch error.errnoCode {
        case EADDRINUSE: return HTTPServerError(.addressInUse, host: host, port: port)
        case EACCES, EPERM: return HTTPServerError(.permissionDenied, host: host, port: port)
        case EADDRNOTAVAIL: return HTTPServerError(.addressNotAvailable, host: host, port: port)
        default: return nil
        }
    }
}
