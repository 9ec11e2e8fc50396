#if NTS
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import NIOConcurrencyHelpers
import TimeSync

/// The master keys an NTS server seals its cookies with, and the `NTPRequestAuthenticator` its NTP
/// server checks NTS requests with (RFC 8915 §6).
///
/// A cookie holds the association's two keys, sealed with AES-SIV-CMAC-256 under the newest master
/// key: 4 bytes of key identifier, a 16-byte nonce, and the sealed keys — 104 bytes. The server keeps
/// no state per client: any server holding the master key can open the cookie.
///
/// **Rotation.** The writer adds a new key once the newest is ``Configuration/rotationInterval`` old
/// and keeps the ``Configuration/retainedKeys`` newest, so a cookie stays good for at least
/// `rotationInterval × (retainedKeys − 1)`; a cookie under a key no longer kept gets an NTS NAK, and
/// its client makes a new key exchange.
///
/// **Scale-out.** With a ``Configuration/directory``, the keys live in its file `ntskeys` (mode 0600,
/// replaced atomically): the key-exchange server writes it (``Role/writer``), and NTP servers on other
/// hosts that read the same directory (``Role/reader``, through a shared or synchronized folder) open
/// the cookies it issues. A reader reloads the file when a cookie names a key it does not know (at most
/// once a second); a file that does not parse changes nothing.
///
/// **Ownership.** Whoever can plant or swap the key file can forge authenticated replies, so the file
/// is used only when this process's user alone controls it, as OpenSSH's `StrictModes` checks a key:
/// a regular file (not a symbolic link), owned by this process's user, mode 0600 (nothing for group
/// or others), in a directory owned by that user or root that neither group nor others can write.
/// Anything else is an ``NTSKeyFileError`` that says what to fix, and the server does not start.
public final class NTSServerKeys: NTPRequestAuthenticator, Sendable {
    /// Whether this server makes the keys or takes them from the directory.
    public enum Role: Sendable, Hashable {
        /// Creates, rotates and writes the keys (the key-exchange server).
        case writer
        /// Reads the keys the writer made (an NTP server of the fleet).
        case reader
    }

    /// The settings of a key ring.
    public struct Configuration: Sendable, Hashable {
        /// The folder shared with the fleet; `nil` keeps the keys in memory only.
        public var directory: String?
        /// Writer or reader (a reader needs a directory).
        public var role: Role
        /// How long a key is the newest before the writer adds another (default one day).
        public var rotationInterval: Duration
        /// How many keys are kept, the newest included (default 3, at least 2).
        public var retainedKeys: Int

        /// Creates settings.
        public init(directory: String? = nil, role: Role = .writer, rotationInterval: Duration = .seconds(86_400), retainedKeys: Int = 3) {
            self.directory = directory
            self.role = role
            self.rotationInterval = rotationInterval
            self.retainedKeys = max(2, retainedKeys)
        }
    }

    /// One master key.
    struct MasterKey: Sendable {
        var id: UInt32
        var created: UnixTime
        var key: [UInt8]
        /// The cipher keyed with it, made once.
        let cipher: AESSIVCMAC256

        init(id: UInt32, created: UnixTime, key: [UInt8]) throws(NTSKeyError) {
            self.id = id
            self.created = created
            self.key = key
            self.cipher = try AESSIVCMAC256(key: key)
        }
    }

    private struct State: Sendable {
        var keys: [MasterKey] = []
        var lastReload: MonotonicInstant?
    }

    /// The file in the directory that holds the keys.
    public static let fileName = "ntskeys"
    /// The length of every cookie this server issues.
    public static let cookieLength = 104

    /// The settings.
    public let configuration: Configuration
    private let timeBase: any TimeBase
    private let state = NIOLockedValueBox(State())

    /// Loads the keys (a writer creates them when the directory has no key file) and, for a writer,
    /// rotates them if due.
    /// - Throws: ``NTSKeyFileError`` for a file that does not parse or cannot be read or written (a
    ///   writer never replaces a key file it cannot read), or a reader without a directory or a key file.
    public init(configuration: Configuration = Configuration(), timeBase: any TimeBase = SystemTimeBase()) throws {
        self.configuration = configuration
        self.timeBase = timeBase
        if let directory = configuration.directory {
            do {
                try OwnerOnlyFile.checkDirectory(directory)
            } catch {
                throw NTSKeyFileError(.untrustedFile, "\(error)")
            }
        }
        if configuration.role == .reader {
            guard configuration.directory != nil else {
                throw NTSKeyFileError(.noKeys, "a reader needs the directory the key-exchange server writes")
            }
            let keys = try load()
            guard !keys.isEmpty else { throw NTSKeyFileError(.noKeys, "\(path ?? ""): no key; start the key-exchange server (the writer) first") }
            state.withLockedValue { $0.keys = keys }
        } else {
            // A file that is there but does not parse is an error, never replaced: the fleet reads it.
            let keys = try load()
            state.withLockedValue { $0.keys = keys }
            try rotateIfDue()
        }
    }

    var path: String? {
        configuration.directory.map { $0.hasSuffix("/") ? $0 + Self.fileName : $0 + "/" + Self.fileName }
    }

    /// The identifiers of the keys held, oldest first.
    public var keyIdentifiers: [UInt32] {
        state.withLockedValue { $0.keys.map(\.id) }
    }

    /// A writer: adds a new key if the newest is ``Configuration/rotationInterval`` old (or there is
    /// none), drops the oldest beyond ``Configuration/retainedKeys``, and writes the file. A reader
    /// does nothing.
    /// - Throws: ``NTSKeyFileError`` when the file cannot be written (the new key is then not used).
    public func rotateIfDue() throws {
        guard configuration.role == .writer else { return }
        let now = timeBase.wallNow()
        let current = state.withLockedValue { $0.keys }
        if let newest = current.last, newest.created.duration(to: now) < configuration.rotationInterval, newest.created <= now { return }
        try rotate()
    }

    /// A writer: adds a new key now, whatever the age of the newest (and writes the file).
    public func rotate() throws {
        guard configuration.role == .writer else { return }
        var generator = SystemRandomNumberGenerator()
        var keys = state.withLockedValue { $0.keys }
        var id = generator.next() as UInt32
        while keys.contains(where: { $0.id == id }) { id = generator.next() }
        keys.append(try MasterKey(id: id, created: timeBase.wallNow(), key: generator.bytes(32)))
        keys = Array(keys.suffix(configuration.retainedKeys))
        if let path { try Self.write(keys, to: path) }
        state.withLockedValue { $0.keys = keys }
    }

    /// A cookie holding the association's keys, sealed under the newest master key.
    public func makeCookie(clientToServer: [UInt8], serverToClient: [UInt8]) -> [UInt8] {
        guard let key = state.withLockedValue({ $0.keys.last }) else { return [] }
        var generator = SystemRandomNumberGenerator()
        let nonce = generator.bytes(16)
        let identifier = key.id.bigEndianBytes
        let plaintext = NTSAEADAlgorithm.aesSIVCMAC256.bigEndianBytes + [0, 0] + clientToServer + serverToClient
        return identifier + nonce + key.cipher.seal(plaintext, nonce: nonce, associatedData: identifier)
    }

    /// The association's keys in a cookie, or `nil` when no master key held opens it.
    public func openCookie(_ cookie: [UInt8]) -> (clientToServer: [UInt8], serverToClient: [UInt8])? {
        guard cookie.count == Self.cookieLength else { return nil }
        let id = Self.identifier(cookie[0..<4])
        var key = state.withLockedValue { $0.keys.first { $0.id == id } }
        if key == nil, configuration.role == .reader, reloadIfAllowed() {
            key = state.withLockedValue { $0.keys.first { $0.id == id } }
        }
        guard let key,
            let plaintext = key.cipher.open(Array(cookie[20...]), nonce: Array(cookie[4..<20]), associatedData: Array(cookie[0..<4])),
            plaintext.count == 68, plaintext[0] == 0, plaintext[1] == UInt8(NTSAEADAlgorithm.aesSIVCMAC256)
        else { return nil }
        return (Array(plaintext[4..<36]), Array(plaintext[36..<68]))
    }

    /// Checks an NTS request: its cookie must open under a key held and its Authenticator verify with
    /// the client-to-server key inside. The reply carries a new cookie for the cookie and one per
    /// placeholder, sealed with the server-to-client key.
    public func authenticate(_ request: NTPPacket) -> NTPRequestAuthentication {
        let nts: NTSServerRequest
        do {
            guard let parsed = try NTSServerRequest(request) else { return .none }
            nts = parsed
        } catch {
            return .drop(.malformedNTS)
        }
        guard let keys = openCookie(nts.cookie) else {
            return .negativeAcknowledgment { nts.negativeAcknowledgment($0) }
        }
        guard let clientToServer = try? AESSIVCMAC256(key: keys.clientToServer), nts.isAuthentic(with: clientToServer),
            let serverToClient = try? AESSIVCMAC256(key: keys.serverToClient)
        else { return .drop(.unauthenticated) }
        let cookies = (0...nts.placeholders).map { _ in makeCookie(clientToServer: keys.clientToServer, serverToClient: keys.serverToClient) }
        var generator = SystemRandomNumberGenerator()
        let nonce = generator.bytes(16)
        return .authenticated { reply in nts.seal(reply, cookies: cookies, cipher: serverToClient, nonce: nonce) }
    }

    /// A reader: loads the file again if the last load is a second old.
    /// - Returns: Whether the keys were reloaded.
    private func reloadIfAllowed() -> Bool {
        let now = timeBase.monotonicNow()
        let allowed = state.withLockedValue { state -> Bool in
            if let last = state.lastReload, last.duration(to: now) < .seconds(1) { return false }
            state.lastReload = now
            return true
        }
        guard allowed, let keys = try? load(), !keys.isEmpty else { return false }
        state.withLockedValue { $0.keys = keys }
        return true
    }

    /// A key identifier from its 4 bytes, most significant first (as in a cookie and the key file).
    static func identifier(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        bytes.reduce(0) { $0 << 8 | UInt32($1) }
    }
}

/// A key file that cannot be read, written or parsed, or a reader with no keys: nothing changes.
public struct NTSKeyFileError: TimeSyncError {
    /// The kinds of unusable key file.
    public enum Code: Sendable, Hashable {
        /// The key file or its directory is not one this process's user alone controls (or cannot be
        /// checked): keys another user could plant or read are not used.
        case untrustedFile
        /// A reader has no key to check cookies with: no directory, no key file, or no key in it.
        case noKeys
        /// The file is not a TimeSync NTS key file, or a line of it does not parse.
        case malformed
        /// The writer cannot write or replace the file.
        case unwritable
        /// The key-exchange server's certificate chain or private key is not a PEM file, or the chain
        /// holds no certificate.
        case invalidCertificate
    }

    /// Which kind of failure this is.
    public let code: Code
    /// The file, the line and what is wrong.
    public let detail: String
    /// What the key's cipher or the TLS library threw, when this error reports one.
    public let underlying: (any Error)?

    init(_ code: Code, _ detail: String, underlying: (any Error)? = nil) {
        self.code = code
        self.detail = detail
        self.underlying = underlying
    }

    public var description: String { "NTS key file: \(detail)" }
}
#endif
