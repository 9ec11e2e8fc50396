import Foundation
import TimeSync
import TimeSyncWire
import TimeSyncSockets

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
    /// 1–65535; ``init(validating:)`` says why.
    public init?(parsing text: String) {
        guard let address = try? NTPServerAddress(validating: text) else { return nil }
        self = address
    }

    /// Parses what ``init(parsing:)`` accepts, and says what is wrong with anything else.
    /// - Parameter text: `host`, `host:port`, `[v6]`, `[v6]:port`, a bare IPv6 literal, or any of
    ///   these after `ntp://`.
    /// - Throws: ``TimeSync/TimeSyncError`` ``TimeSync/TimeSyncError/Code/invalidServerAddress`` whose message quotes the text and gives the
    ///   reason: no host, a port that is not a number or is outside 1–65535, an unclosed `[`, a path,
    ///   a host name DNS cannot carry (a label over 63 octets, a name over 253, an empty label).
    public init(validating text: String) throws(TimeSyncError) {
        do {
            try self.init(checking: text)
        } catch {
            throw TimeSyncError(.invalidServerAddress, error.description, cause: error)
        }
    }

    /// ``init(validating:)`` with the sockets layer's error.
    package init(checking text: String) throws(NTPClientError) {
        func invalid(_ reason: String) -> NTPClientError { NTPClientError(.invalidServerAddress, "'\(text)': \(reason)") }
        var rest = Substring(text.trimmingCharacters(in: .whitespaces))
        if rest.lowercased().hasPrefix("ntp://") { rest = rest.dropFirst(6) }
        while rest.hasSuffix("/") { rest = rest.dropLast() }
        guard !rest.isEmpty else { throw invalid("no host") }
        var host: Substring
        var portText: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { throw invalid("the IPv6 literal's '[' has no ']'") }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw invalid("expected ':PORT' after ']', found '\(after)'") }
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
        guard !host.isEmpty else { throw invalid("no host") }
        if HostPort.hasControlCharacter(String(host)) {
            throw invalid("the host holds a control character (a NUL, a line break)")
        }
        // Colons, or brackets, are an IPv6 literal's and nothing else's.
        let isIPv6Literal = host.contains(":") && IPAddress(String(host)) != nil
        if rest.hasPrefix("[") || host.contains(":"), !isIPv6Literal {
            throw invalid("'\(host)' is neither HOST:PORT nor an IPv6 literal (write IPv6 with a port as [ADDRESS]:PORT)")
        }
        // A host name is letters, digits, '-', '.' and '_' (an IDN's letters included); an IPv6
        // literal adds ':'. Anything else ('%', ' ', '#', …) would only fail later, in DNS.
        if let bad = host.unicodeScalars.first(where: { $0.isASCII && !(($0.properties.isAlphabetic) || ("0"..."9").contains($0) || "-._:".unicodeScalars.contains($0)) }) {
            throw invalid(bad == "/" ? "an NTP server address has no path" : "'\(host)' is not a host name or IP address")
        }
        if let problem = HostPort.dnsNameProblem(String(host)) { throw invalid(problem) }
        var port = Self.defaultPort
        if let portText {
            guard let value = Int(portText) else { throw invalid("the port '\(portText)' is not a number") }
            guard (1...65535).contains(value) else { throw invalid("the port \(value) is outside 1–65535") }
            port = value
        }
        self.init(host: String(host), port: port)
    }

    /// `host:port`, with brackets around an IPv6 literal.
    public var description: String {
        HostPort.format(host: host, port: port)
    }

    /// The built-in servers, used when an app names none: four stratum-1 servers of two operators
    /// that invite anyone to use them, two independent servers each, so that a majority can form
    /// and outvote one wrong server:
    /// - `sth1.ntp.se`, `sth2.ntp.se`: the Swedish Distributed Time Service, run by Netnod for the
    ///   Swedish Post and Telecom Authority, steered to UTC(SP) ("free to use for anyone anywhere");
    /// - `ntp1.time.nl`, `ntp2.time.nl`: TimeNL, run by SIDN Labs ("available for anyone to use,
    ///   free of charge").
    ///
    /// None of them smears leap seconds: all four follow UTC itself, so they never disagree about
    /// one. The NTP Pool is not among them: the pool asks software vendors not to hard-code its
    /// zones but to ask for a vendor zone of their own (`.pool(vendor:)`). The servers are in
    /// Europe: an app whose users are elsewhere gets tighter bounds from a vendor zone, or from
    /// servers near them (the bounds grow with the round trip).
    public static let defaultServers: [NTPServerAddress] = [
        NTPServerAddress(host: "sth1.ntp.se"), NTPServerAddress(host: "sth2.ntp.se"),
        NTPServerAddress(host: "ntp1.time.nl"), NTPServerAddress(host: "ntp2.time.nl"),
    ]

    /// Parses a hosts file in the format of ios-ntp's `ntp.hosts`: one server per line (any form
    /// ``init(parsing:)`` accepts), `#` starting a comment, blank lines ignored.
    /// - Throws: ``TimeSync/TimeSyncError`` ``TimeSync/TimeSyncError/Code/invalidHostsFile`` naming the first line that is not a
    ///   server address.
    public static func parseHostsFile(_ text: String) throws(TimeSyncError) -> [NTPServerAddress] {
        var servers: [NTPServerAddress] = []
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var line = rawLine
            if let hash = line.firstIndex(of: "#") { line = line[..<hash] }
            let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !trimmed.isEmpty else { continue }
            guard let server = NTPServerAddress(parsing: trimmed) else {
                let error = NTPHostsFileError(line: index + 1, text: trimmed)
                throw TimeSyncError(.invalidHostsFile, error.description, cause: error)
            }
            if !servers.contains(server) { servers.append(server) }
        }
        return servers
    }

    /// Reads and parses a hosts file; see ``parseHostsFile(_:)``.
    /// - Throws: ``TimeSync/TimeSyncError``: ``TimeSync/TimeSyncError/Code/invalidHostsFile``, or
    ///   ``TimeSync/TimeSyncError/Code/hostsFileUnreadable`` with the file system's error as its cause when the
    ///   file cannot be read.
    public static func loadHostsFile(atPath path: String) throws(TimeSyncError) -> [NTPServerAddress] {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw TimeSyncError(.hostsFileUnreadable, "cannot read the hosts file \(path): \(ErrorMessage.of(error))", cause: error)
        }
        return try parseHostsFile(text)
    }
}

extension [NTPServerAddress] {
    /// The four zones of the NTP Pool's vendor zone `vendor` (`0.VENDOR.pool.ntp.org` to
    /// `3.VENDOR.pool.ntp.org`): how software that ships with the pool as its default is asked to
    /// use it. Ask the pool for the zone before shipping (its "vendors" page); until it exists, its
    /// names do not resolve.
    ///
    /// ```swift
    /// let sync = TimeSynchronizer.ntp(try .pool(vendor: "acme"))
    /// ```
    /// - Throws: ``TimeSync/TimeSyncError`` ``TimeSync/TimeSyncError/Code/invalidServerAddress`` for
    ///   a vendor that is not one DNS label (letters, digits and `-`, at most 63 characters, not
    ///   starting or ending with `-`).
    public static func pool(vendor: String) throws(TimeSyncError) -> [NTPServerAddress] {
        let label = vendor.lowercased()
        let allowed = label.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }
        guard (1...63).contains(label.utf8.count), allowed, !label.hasPrefix("-"), !label.hasSuffix("-") else {
            throw TimeSyncError(
                .invalidServerAddress,
                "'\(vendor.prefix(80))' is not a vendor zone: give the one DNS label the NTP Pool assigned (letters, digits and '-')")
        }
        return (0..<4).map { NTPServerAddress(host: "\($0).\(label).pool.ntp.org") }
    }
}

extension TimeSyncError.Code {
    /// A server address that is not `host`, `host:port`, `[v6]` or `[v6]:port` (the message says why).
    public static let invalidServerAddress = Self("invalidServerAddress")
    /// A line of a hosts file that is not a server address (the message names the line).
    public static let invalidHostsFile = Self("invalidHostsFile")
    /// A hosts file that cannot be read (the cause is the file system's error).
    public static let hostsFileUnreadable = Self("hostsFileUnreadable")
}
