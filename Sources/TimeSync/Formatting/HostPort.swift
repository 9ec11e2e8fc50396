/// How a host and a port are written together in source names, messages and logs.
package enum HostPort {
    /// `host:port`, with an IPv6 literal in brackets so the port stays apart (`[::1]:123`); the host
    /// alone when there is no port.
    /// - Parameters:
    ///   - host: A host name or an IP literal, with or without brackets around an IPv6 literal.
    ///   - port: The port, or `nil` when it is implied (a URL without one).
    /// - Returns: The text.
    package static func format(host: String, port: Int?) -> String {
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return port.map { "\(bracketed):\($0)" } ?? bracketed
    }

    /// Whether a host from a URL holds a control character (a NUL, a line break, DEL), which no host
    /// name has and which would cut or split it in C strings and headers.
    package static func hasControlCharacter(_ host: String) -> Bool {
        host.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
    }
}
