#if NTS
import Foundation
import TimeSync
import TimeSyncSockets
import TimeSyncWire
import TimeSyncNTP

/// An NTS key-exchange server named by a URL: `nts://HOST[:PORT]`, port 4460 unless given.
///
/// ```swift
/// let server = try NTSServerURL("nts://time.cloudflare.com")
/// let result = try await NTSClient(host: server.host, port: server.port).query(samples: 4)
/// ```
public struct NTSServerURL: Sendable, Hashable, CustomStringConvertible {
    /// The key-exchange server's host name or IP literal (an IPv6 literal without brackets).
    public var host: String
    /// The key-exchange server's TCP port.
    public var port: Int

    /// A server by its parts.
    public init(host: String, port: Int = NTSKeyExchange.defaultPort) {
        self.host = host
        self.port = port
    }

    /// Parses `nts://HOST[:PORT]`, `nts://[V6]:PORT` or a bare IPv6 literal after the scheme (the
    /// scheme in any case, trailing `/` allowed); the port is ``NTSKeyExchange/defaultPort`` unless given.
    /// - Throws: `TimeSyncError` `.invalidServerAddress` whose message quotes the text and gives the
    ///   reason: not an `nts://` URL, no host, a port outside 1–65535, more than one port.
    public init(_ text: String) throws(TimeSyncError) {
        do {
            try self.init(checking: text)
        } catch {
            throw TimeSyncError(.invalidServerAddress, error.description, cause: error)
        }
    }

    /// ``init(_:)`` with the sockets layer's error.
    package init(checking text: String) throws(NTPClientError) {
        guard text.lowercased().hasPrefix("nts://") else {
            throw NTPClientError(.invalidServerAddress, "'\(text)': not an nts:// URL")
        }
        var rest = String(text.dropFirst(6))
        while rest.hasSuffix("/") { rest.removeLast() }
        let explicitPort: Bool
        if rest.hasPrefix("[") {
            explicitPort = rest.contains("]:")
        } else {
            explicitPort = rest.filter { $0 == ":" }.count == 1
        }
        let parsed = try NTPServerAddress(
            checking: explicitPort ? rest : HostPort.format(host: rest.trimmingCharacters(in: ["[", "]"]), port: NTSKeyExchange.defaultPort))
        host = parsed.host
        port = parsed.port
    }

    /// `nts://HOST:PORT`: the name an NTS client's samples carry.
    public var description: String { "nts://" + HostPort.format(host: host, port: port) }
}
#endif
