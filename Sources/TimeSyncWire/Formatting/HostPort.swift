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

    /// What makes `host` a name DNS cannot carry: a label longer than 63 octets, a name longer than
    /// 253, an empty label (`a..b`, a leading dot); `nil` for a name within the limits and for an IP
    /// literal (with or without brackets). Checked before any lookup, so a name no resolver could take
    /// is the caller's mistake, not a DNS failure. A label with non-ASCII letters (an IDN) is counted
    /// at the fewest octets its `xn--` form could take, so no valid name is refused.
    /// - Returns: The reason, naming the label, for a usage error.
    package static func dnsNameProblem(_ host: String) -> String? {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if IPAddress(bare) != nil { return nil }
        var name = Substring(bare)
        if name.hasSuffix(".") { name = name.dropLast() }  // the root's dot of a fully qualified name
        var total = 0
        for label in name.split(separator: ".", omittingEmptySubsequences: false) {
            let octets = label.unicodeScalars.allSatisfy(\.isASCII) ? label.utf8.count : 4 + label.unicodeScalars.count
            guard octets > 0 else { return "the host '\(abbreviated(name))' has an empty label (a leading dot, or two dots in a row)" }
            guard octets <= 63 else {
                return "the host's label '\(abbreviated(label))' is \(octets) octets long; a DNS label has at most 63 (and a name at most 253)"
            }
            total += (total == 0 ? 0 : 1) + octets
        }
        guard total <= 253 else { return "the host '\(abbreviated(name))' is \(total) octets long; a DNS name has at most 253" }
        return nil
    }

    /// The first 24 characters of a long text, then `…`.
    private static func abbreviated(_ text: Substring) -> String {
        text.count <= 32 ? String(text) : String(text.prefix(24)) + "…"
    }

    /// Whether a host from a URL holds a control character (a NUL, a line break, DEL), which no host
    /// name has and which would cut or split it in C strings and headers.
    package static func hasControlCharacter(_ host: String) -> Bool {
        host.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
    }
}
