import Foundation

/// An NTP server to ask: a host name or IP literal and a UDP port.
public struct NTPServerAddress: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The standard NTP port.
    public static let defaultPort = 123

    /// Host name or IP literal (IPv6 without brackets).
    public var host: String
    /// UDP port.
    public var port: Int

    /// Creates an address.
    public init(host: String, port: Int = NTPServerAddress.defaultPort) {
        self.host = host
        self.port = port
    }

    /// Parses `host`, `host:port`, `[v6]`, `[v6]:port`, a bare IPv6 literal, or any of these after
    /// `ntp://` (a trailing `/` is allowed). Returns `nil` for anything else, including a port outside
    /// 1–65535.
    public init?(parsing text: String) {
        var rest = Substring(text.trimmingCharacters(in: .whitespaces))
        if rest.lowercased().hasPrefix("ntp://") { rest = rest.dropFirst(6) }
        while rest.hasSuffix("/") { rest = rest.dropLast() }
        guard !rest.isEmpty else { return nil }
        var host: Substring
        var portText: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { return nil }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return nil }
                portText = after.dropFirst()
            }
        } else if rest.filter({ $0 == ":" }).count > 1 {
            host = rest  // a bare IPv6 literal
        } else if let colon = rest.firstIndex(of: ":") {
            host = rest[..<colon]
            portText = rest[rest.index(after: colon)...]
        } else {
            host = rest
        }
        guard !host.isEmpty, !host.contains(where: { $0.isWhitespace || $0 == "/" || $0 == "#" }) else { return nil }
        var port = Self.defaultPort
        if let portText {
            guard let value = Int(portText), (1...65535).contains(value) else { return nil }
            port = value
        }
        self.init(host: String(host), port: port)
    }

    /// `host:port`, with brackets around an IPv6 literal.
    public var description: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// The built-in servers used when no configuration or hosts file names any: the four zones of
    /// the NTP Pool (each resolves to several servers). None of them smears leap seconds.
    public static let defaultPool: [NTPServerAddress] = [
        NTPServerAddress(host: "0.pool.ntp.org"), NTPServerAddress(host: "1.pool.ntp.org"),
        NTPServerAddress(host: "2.pool.ntp.org"), NTPServerAddress(host: "3.pool.ntp.org"),
    ]

    /// Parses a hosts file in the format of ios-ntp's `ntp.hosts`: one server per line (any form
    /// ``init(parsing:)`` accepts), `#` starting a comment, blank lines ignored.
    /// - Throws: ``NTPHostsFileError`` naming the first line that is not a server address.
    public static func parseHostsFile(_ text: String) throws(NTPHostsFileError) -> [NTPServerAddress] {
        var servers: [NTPServerAddress] = []
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var line = rawLine
            if let hash = line.firstIndex(of: "#") { line = line[..<hash] }
            let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !trimmed.isEmpty else { continue }
            guard let server = NTPServerAddress(parsing: trimmed) else {
                throw NTPHostsFileError(line: index + 1, text: trimmed)
            }
            if !servers.contains(server) { servers.append(server) }
        }
        return servers
    }

    /// Reads and parses a hosts file; see ``parseHostsFile(_:)``.
    /// - Throws: The file system's error, or ``NTPHostsFileError``.
    public static func loadHostsFile(atPath path: String) throws -> [NTPServerAddress] {
        try parseHostsFile(String(contentsOfFile: path, encoding: .utf8))
    }
}
