/// Why an ``NTPServer`` could not start serving.
public struct NTPServerError: Error, Sendable, Hashable, CustomStringConvertible {
    enum Code: Sendable, Hashable {
        case addressInUse
        case permissionDenied
        case addressNotAvailable
    }

    let code: Code
    /// The address the server was to bind.
    public let host: String
    /// The UDP port the server was to bind.
    public let port: Int

    init(_ code: Code, host: String, port: Int) {
        self.code = code
        self.host = host
        self.port = port
    }

    /// Another socket already serves the address and port — another process (chronyd, ntpd, a second
    /// server), or one of this process's that is not this server. Sharing it with `SO_REUSEPORT`
    /// would split the clients between the two without a word, so the server refuses.
    public static let addressInUse = NTPServerError(.addressInUse, host: "", port: 0)
    /// The process may not bind the port: ports below 1024 (NTP's 123) need privileges.
    public static let permissionDenied = NTPServerError(.permissionDenied, host: "", port: 0)
    /// The address is not one of this host's.
    public static let addressNotAvailable = NTPServerError(.addressNotAvailable, host: "", port: 0)

    /// Errors compare equal when they are the same kind of failure; the address is not compared.
    public static func == (lhs: NTPServerError, rhs: NTPServerError) -> Bool { lhs.code == rhs.code }

    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    public var description: String {
        switch code {
        case .addressInUse: "UDP port \(port) on \(host) is already in use by another process"
        case .permissionDenied: "this process may not bind UDP port \(port) on \(host): ports below 1024 need privileges"
        case .addressNotAvailable: "\(host) is not an address of this host: cannot bind UDP port \(port) on it"
        }
    }
}
