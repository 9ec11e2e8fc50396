import Foundation
import TimeSync
import TimeSyncWire

/// A Roughtime server named by a URL: `roughtime://HOST:PORT?key=BASE64[&versions=1,0x8000000c]`.
///
/// The key pins the server's long-term Ed25519 public key (32 bytes, base64 or hex): a reply counts
/// only when it is signed under it. `versions` lists the versions to offer, by number or name
/// (`1`, `0x8000000c`, `0x8000000b`, `0x80000008`, `google`); without it a client offers
/// `RoughtimeVersion.defaultOffer`.
///
/// ```swift
/// let server = try RoughtimeServerURL("roughtime://roughtime.example:2002?key=AW5uAoTSTDfG5NfY1bTh08GUnOqlRb+HVhbJ3ODJvsE=")
/// let result = try await RoughtimeClient(server).query(samples: 4)
/// ```
public struct RoughtimeServerURL: Sendable, Hashable, CustomStringConvertible {
    /// The server's host name or IP literal (an IPv6 literal without brackets).
    public var host: String
    /// The server's UDP port.
    public var port: Int
    /// The server's long-term public key (32 bytes).
    public var publicKey: [UInt8]
    /// The versions to offer.
    public var versions: [RoughtimeVersion]

    /// Parses a `roughtime://` URL. The key may be percent-encoded; a `+` in it is a `+`, not a space.
    /// - Parameter text: `roughtime://HOST:PORT?key=BASE64[&versions=…]`; the scheme in any case,
    ///   an IPv6 literal in brackets.
    /// - Throws: `RoughtimeError.invalidURL` (not a `roughtime://` URL with a host and a port),
    ///   `RoughtimeError.missingKey` (no `key=`), `RoughtimeError.badKey` (a key that is not 32
    ///   bytes of base64 or hex), `RoughtimeError.unknownVersion`; each detail quotes what is wrong.
    public init(_ text: String) throws(RoughtimeError) {
        guard text.lowercased().hasPrefix("roughtime://"), let components = URLComponents(string: text), let host = components.host,
            !host.isEmpty, let port = components.port
        else {
            throw RoughtimeError(.invalidURL, "'\(text)' is not a roughtime://HOST:PORT?key=BASE64 URL")
        }
        // A `+` in base64 is a space to a query-string decoder: read the raw value.
        let items = (components.percentEncodedQuery ?? "").split(separator: "&").map { $0.split(separator: "=", maxSplits: 1).map(String.init) }
        guard let key = items.first(where: { $0.first == "key" && $0.count == 2 })?[1] else {
            throw RoughtimeError(.missingKey, "'\(text)' has no key=")
        }
        publicKey = try RoughtimeKeyText.publicKey(key.removingPercentEncoding ?? key)
        if let list = items.first(where: { $0.first == "versions" && $0.count == 2 })?[1] {
            var versions: [RoughtimeVersion] = []
            for name in list.split(separator: ",") {
                guard let version = RoughtimeVersion(name: String(name)) else {
                    throw RoughtimeError(.unknownVersion, "unknown Roughtime version '\(name)'")
                }
                versions.append(version)
            }
            self.versions = versions
        } else {
            versions = RoughtimeVersion.defaultOffer
        }
        self.host = host.trimmingCharacters(in: ["[", "]"])
        self.port = port
    }

    /// `roughtime://HOST:PORT`, without the key: the name a client's samples carry.
    public var description: String { "roughtime://" + HostPort.format(host: host, port: port) }
}

@available(watchOS, unavailable, message: "watchOS apps cannot use BSD sockets (Apple TN3135): use TimeSynchronizer.https() or TimeSource.https(_:)")
extension RoughtimeClient {
    /// A client for the server a URL names, offering the URL's versions.
    /// - Parameters:
    ///   - server: The server, its key and versions.
    ///   - timeBase: The clocks.
    ///   - addressPolicy: Which addresses the name may resolve to.
    public init(_ server: RoughtimeServerURL, timeBase: (any TimeBase)? = nil, addressPolicy: AddressPolicy = .publicOnly) {
        let timeBase = timeBase ?? SystemTimeBase()
        self.init(
            host: server.host, port: server.port, publicKey: server.publicKey, versions: server.versions, timeBase: timeBase,
            addressPolicy: addressPolicy)
    }
}
