#if NTS
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Atomics
import Foundation
import NIOConcurrencyHelpers
import TimeSync
import TimeSyncWire
import TimeSyncServerSupport

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
/// a regular file, owned by this process's user, mode 0600 (nothing for group or others), on a path
/// whose every directory from `/` down belongs to that user or root and is writable by neither group
/// nor others (unless sticky, as `/tmp` is). The file may be a symbolic link that resolves inside the
/// directory, as each file of a Kubernetes Secret volume is a link into `..data/`, when every link on
/// the way belongs to that user or root; a link out of the directory is refused. Anything else is an
/// ``NTSKeyFileError`` that says what to fix (its `underlying` the `UntrustedPathError` naming the
/// component, when a component of the path is the cause), and the server does not start.
///
/// **Cost.** A request is checked and its reply sealed in one pass over the datagram and the reply
/// buffer, nothing allocated: the master keys' AES schedules are computed once per key, the two
/// keys a cookie holds once per request, on the stack. The sockets of a server share the keys
/// without a lock: a rotation or a reload swaps the whole set atomically.
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

    /// The keys held, oldest first: replaced whole, never changed in place.
    final class KeyRing: AtomicReference, Sendable {
        let keys: [MasterKey]

        init(_ keys: [MasterKey]) {
            self.keys = keys
        }

        /// The key with this identifier.
        func key(_ id: UInt32) -> MasterKey? {
            keys.first { $0.id == id }
        }
    }

    /// What changes the keys: a writer's rotation, a reader's reload.
    private struct State: Sendable {
        var lastReload: MonotonicInstant?
    }

    /// The file in the directory that holds the keys.
    public static let fileName = "ntskeys"
    /// The length of every cookie this server issues.
    public static let cookieLength = 104

    /// The settings.
    public let configuration: Configuration
    private let timeBase: any TimeBase
    /// Serializes rotations and reloads; requests read ``ring`` without it.
    private let state = NIOLockedValueBox(State())
    private let ring = ManagedAtomic(KeyRing([]))

    /// Loads the keys (a writer creates them when the directory has no key file) and, for a writer,
    /// rotates them if due.
    /// - Throws: ``NTSKeyFileError`` for a file that does not parse or cannot be read or written (a
    ///   writer never replaces a key file it cannot read), or a reader without a directory or a key file.
    public init(configuration: Configuration = Configuration(), timeBase: (any TimeBase)? = nil) throws {
        let timeBase = timeBase ?? SystemTimeBase()
        self.configuration = configuration
        self.timeBase = timeBase
        if let directory = configuration.directory {
            do {
                try OwnerOnlyFile.checkDirectory(directory)
            } catch {
                throw NTSKeyFileError(.untrustedFile, "\(error)", underlying: error)
            }
        }
        if configuration.role == .reader {
            guard configuration.directory != nil else {
                throw NTSKeyFileError(.noKeys, "a reader needs the directory the key-exchange server writes")
            }
            let keys = try load()
            guard !keys.isEmpty else { throw NTSKeyFileError(.noKeys, "\(path ?? ""): no key; start the key-exchange server (the writer) first") }
            ring.store(KeyRing(keys), ordering: .releasing)
        } else {
            // A file that is there but does not parse is an error, never replaced: the fleet reads it.
            let keys = try load()
            ring.store(KeyRing(keys), ordering: .releasing)
            try rotateIfDue()
        }
    }

    var path: String? {
        configuration.directory.map { $0.hasSuffix("/") ? $0 + Self.fileName : $0 + "/" + Self.fileName }
    }

    /// The identifiers of the keys held, oldest first.
    public var keyIdentifiers: [UInt32] {
        ring.load(ordering: .acquiring).keys.map(\.id)
    }

    /// A writer: adds a new key if the newest is ``Configuration/rotationInterval`` old (or there is
    /// none), drops the oldest beyond ``Configuration/retainedKeys``, and writes the file. A reader
    /// does nothing.
    /// - Throws: ``NTSKeyFileError`` when the file cannot be written (the new key is then not used).
    public func rotateIfDue() throws {
        guard configuration.role == .writer else { return }
        let now = timeBase.wallNow()
        let current = ring.load(ordering: .acquiring).keys
        if let newest = current.last, newest.created.duration(to: now) < configuration.rotationInterval, newest.created <= now { return }
        try rotate()
    }

    /// A writer: adds a new key now, whatever the age of the newest (and writes the file).
    public func rotate() throws {
        guard configuration.role == .writer else { return }
        try state.withLockedValue { _ in
            var generator = SystemRandomNumberGenerator()
            var keys = self.ring.load(ordering: .acquiring).keys
            var id = generator.next() as UInt32
            while keys.contains(where: { $0.id == id }) { id = generator.next() }
            keys.append(try MasterKey(id: id, created: timeBase.wallNow(), key: generator.bytes(32)))
            keys = Array(keys.suffix(configuration.retainedKeys))
            if let path { try Self.write(keys, to: path) }
            self.ring.store(KeyRing(keys), ordering: .releasing)
        }
    }

    /// A cookie holding the association's keys, sealed under the newest master key.
    public func makeCookie(clientToServer: [UInt8], serverToClient: [UInt8]) -> [UInt8] {
        guard let key = self.ring.load(ordering: .acquiring).keys.last, clientToServer.count == 32, serverToClient.count == 32 else { return [] }
        var cookie = [UInt8](repeating: 0, count: Self.cookieLength)
        cookie.withUnsafeMutableBytes { cookie in
            clientToServer.withUnsafeBytes { c2s in
                serverToClient.withUnsafeBytes { s2c in
                    fillRandom(UnsafeMutableRawBufferPointer(rebasing: cookie[4..<20]))
                    Self.sealCookie(into: cookie, under: key, clientToServer: c2s, serverToClient: s2c)
                }
            }
        }
        return cookie
    }

    /// The association's keys in a cookie, or `nil` when no master key held opens it.
    public func openCookie(_ cookie: [UInt8]) -> (clientToServer: [UInt8], serverToClient: [UInt8])? {
        let ring = self.ring.load(ordering: .acquiring)
        var keys = [UInt8](repeating: 0, count: 64)
        let opened = cookie.withUnsafeBytes { cookie in
            keys.withUnsafeMutableBytes { openCookie(cookie, ring: ring, into: $0) }
        }
        return opened ? (Array(keys[0..<32]), Array(keys[32..<64])) : nil
    }

    /// Writes a cookie into `cookie` (``cookieLength`` bytes, its nonce already at 4..<20): the key's
    /// identifier, the nonce, and the algorithm and the two keys sealed under `key`.
    private static func sealCookie(
        into cookie: UnsafeMutableRawBufferPointer, under key: MasterKey, clientToServer: UnsafeRawBufferPointer,
        serverToClient: UnsafeRawBufferPointer
    ) {
        cookie.storeBytes(of: key.id.bigEndian, toByteOffset: 0, as: UInt32.self)
        // The plaintext: the AEAD algorithm (2 bytes), 2 zero bytes, then the keys.
        cookie.storeBytes(of: UInt16(NTSAEADAlgorithm.aesSIVCMAC256).bigEndian, toByteOffset: 36, as: UInt16.self)
        cookie.storeBytes(of: UInt16(0), toByteOffset: 38, as: UInt16.self)
        UnsafeMutableRawBufferPointer(rebasing: cookie[40..<72]).copyMemory(from: clientToServer)
        UnsafeMutableRawBufferPointer(rebasing: cookie[72..<104]).copyMemory(from: serverToClient)
        let identifier = UnsafeRawBufferPointer(rebasing: cookie[0..<4])
        let nonce = UnsafeRawBufferPointer(rebasing: cookie[4..<20])
        AESSIV.sealInPlace(key.cipher.keySchedule, UnsafeMutableRawBufferPointer(rebasing: cookie[20..<104])) { schedule, d in
            AESSIV.absorb(schedule, identifier, into: &d)
            AESSIV.absorb(schedule, nonce, into: &d)
        }
    }

    /// Opens `cookie` into `keys` (64 bytes: client-to-server, then server-to-client), reloading the
    /// key file once if a reader does not know its key.
    /// - Returns: Whether a key held opened it and it holds AES-SIV-CMAC-256 keys.
    private func openCookie(_ cookie: UnsafeRawBufferPointer, ring: KeyRing, into keys: UnsafeMutableRawBufferPointer) -> Bool {
        guard cookie.count == Self.cookieLength else { return false }
        let id = UInt32(bigEndian: cookie.loadUnaligned(as: UInt32.self))
        var key = ring.key(id)
        if key == nil, configuration.role == .reader, reloadIfAllowed() {
            key = self.ring.load(ordering: .acquiring).key(id)
        }
        guard let key else { return false }
        let identifier = UnsafeRawBufferPointer(rebasing: cookie[0..<4])
        let nonce = UnsafeRawBufferPointer(rebasing: cookie[4..<20])
        return withUnsafeTemporaryAllocation(byteCount: 68, alignment: 16) { plaintext in
            let authentic = AESSIV.open(key.cipher.keySchedule, UnsafeRawBufferPointer(rebasing: cookie[20..<104]), into: plaintext) { schedule, d in
                AESSIV.absorb(schedule, identifier, into: &d)
                AESSIV.absorb(schedule, nonce, into: &d)
            }
            guard authentic, plaintext[0] == 0, plaintext[1] == UInt8(NTSAEADAlgorithm.aesSIVCMAC256) else { return false }
            keys.copyMemory(from: UnsafeRawBufferPointer(rebasing: plaintext[4..<68]))
            return true
        }
    }

    /// Checks an NTS request and writes its answer, in one pass and without allocating: the cookie
    /// must open under a key held and the request's Authenticator verify with the client-to-server
    /// key inside. The reply carries a new cookie for the cookie and one per placeholder, sealed with
    /// the server-to-client key; a cookie no key opens gets the NTS NAK.
    public func authenticate(
        _ request: UnsafeRawBufferPointer, into reply: UnsafeMutableRawBufferPointer, header: (NTPAnswerHeader) -> NTPPacket
    ) -> NTPRequestAuthentication {
        let layout: NTSRequestLayout
        do {
            guard let parsed = try NTSRequestLayout(request) else { return .none }
            layout = parsed
        } catch {
            return .drop(.malformedNTS)
        }
        let identifierField = UnsafeRawBufferPointer(rebasing: request[layout.uniqueIdentifierField])
        let ring = self.ring.load(ordering: .acquiring)
        return withUnsafeTemporaryAllocation(byteCount: 64, alignment: 16) { keys in
            defer { keys.initializeMemory(as: UInt8.self, repeating: 0) }
            guard openCookie(UnsafeRawBufferPointer(rebasing: request[layout.cookie]), ring: ring, into: keys) else {
                let length = NTPPacket.headerSize + identifierField.count
                guard length <= reply.count else { return .drop(.replyTooLarge) }
                header(.negativeAcknowledgment).writeHeader(to: reply)
                UnsafeMutableRawBufferPointer(rebasing: reply[NTPPacket.headerSize..<length]).copyMemory(from: identifierField)
                return .negativeAcknowledgment(length: length)
            }
            let clientToServer = UnsafeRawBufferPointer(rebasing: keys[0..<32])
            let serverToClient = UnsafeRawBufferPointer(rebasing: keys[32..<64])
            guard Self.verify(request, layout, key: clientToServer, scratch: reply) else { return .drop(.unauthenticated) }
            let cookies = 1 + layout.placeholders
            let length = layout.replySize(cookies: cookies, cookieLength: Self.cookieLength)
            guard length <= reply.count, let newest = ring.keys.last else { return .drop(.replyTooLarge) }
            // The reply: header, the Unique Identifier field as it came, then the Authenticator: type,
            // length, the nonce's and the ciphertext's lengths, the nonce, the IV, and the cookie fields
            // it encrypts.
            let identifierEnd = NTPPacket.headerSize + identifierField.count
            let nonceStart = identifierEnd + 8
            let ivStart = nonceStart + NTSFields.nonceLength
            let plaintextStart = ivStart + 16
            let cookieField = 4 + Self.cookieLength
            // Fresh nonces, from one call: the reply's, then one per cookie, each written in its place.
            withUnsafeTemporaryAllocation(byteCount: 16 * (1 + cookies), alignment: 16) { random in
                fillRandom(random)
                UnsafeMutableRawBufferPointer(rebasing: reply[nonceStart..<ivStart]).copyMemory(from: UnsafeRawBufferPointer(rebasing: random[0..<16]))
                for index in 0..<cookies {
                    let field = plaintextStart + index * cookieField
                    reply.storeBytes(of: NTSExtensionFieldType.cookie.bigEndian, toByteOffset: field, as: UInt16.self)
                    reply.storeBytes(of: UInt16(cookieField).bigEndian, toByteOffset: field + 2, as: UInt16.self)
                    let cookie = UnsafeMutableRawBufferPointer(rebasing: reply[field + 4..<field + cookieField])
                    UnsafeMutableRawBufferPointer(rebasing: cookie[4..<20])
                        .copyMemory(from: UnsafeRawBufferPointer(rebasing: random[16 * (index + 1)..<16 * (index + 2)]))
                    Self.sealCookie(into: cookie, under: newest, clientToServer: clientToServer, serverToClient: serverToClient)
                }
            }
            reply.storeBytes(of: NTSExtensionFieldType.authenticator.bigEndian, toByteOffset: identifierEnd, as: UInt16.self)
            reply.storeBytes(of: UInt16(length - identifierEnd).bigEndian, toByteOffset: identifierEnd + 2, as: UInt16.self)
            reply.storeBytes(of: UInt16(NTSFields.nonceLength).bigEndian, toByteOffset: identifierEnd + 4, as: UInt16.self)
            reply.storeBytes(of: UInt16(16 + cookies * cookieField).bigEndian, toByteOffset: identifierEnd + 6, as: UInt16.self)
            UnsafeMutableRawBufferPointer(rebasing: reply[NTPPacket.headerSize..<identifierEnd]).copyMemory(from: identifierField)
            var schedule = AESSIVSchedule(key: serverToClient)
            // The transmit timestamp, as late as the sealing allows: it is authenticated.
            header(.reply).writeHeader(to: reply)
            let associatedData = UnsafeRawBufferPointer(rebasing: reply[0..<identifierEnd])
            let nonce = UnsafeRawBufferPointer(rebasing: reply[nonceStart..<ivStart])
            AESSIV.sealInPlace(&schedule, UnsafeMutableRawBufferPointer(rebasing: reply[ivStart..<length])) { schedule, d in
                AESSIV.absorb(schedule, associatedData, into: &d)
                AESSIV.absorb(schedule, nonce, into: &d)
            }
            return .authenticated(length: length)
        }
    }

    /// Whether the request's Authenticator opens with the client-to-server key, over the bytes
    /// before it; `scratch` (at least the ciphertext's size) takes the decrypted fields.
    private static func verify(
        _ request: UnsafeRawBufferPointer, _ layout: NTSRequestLayout, key: UnsafeRawBufferPointer, scratch: UnsafeMutableRawBufferPointer
    ) -> Bool {
        var schedule = AESSIVSchedule(key: key)
        let associatedData = UnsafeRawBufferPointer(rebasing: request[0..<layout.authenticatorStart])
        let nonce = UnsafeRawBufferPointer(rebasing: request[layout.nonce])
        let sealed = UnsafeRawBufferPointer(rebasing: request[layout.ciphertext])
        guard sealed.count - 16 <= scratch.count else { return false }
        return AESSIV.open(&schedule, sealed, into: UnsafeMutableRawBufferPointer(rebasing: scratch[0..<sealed.count - 16])) { schedule, d in
            AESSIV.absorb(schedule, associatedData, into: &d)
            AESSIV.absorb(schedule, nonce, into: &d)
        }
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
        ring.store(KeyRing(keys), ordering: .releasing)
        return true
    }

    /// A key identifier from its 4 bytes, most significant first (as in a cookie and the key file).
    static func identifier(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        bytes.reduce(0) { $0 << 8 | UInt32($1) }
    }
}

/// A key file that cannot be read, written or parsed, or a reader with no keys: nothing changes.
public struct NTSKeyFileError: CodedError {
    /// The kinds of unusable key file.
    public enum Code: Sendable, Hashable {
        /// The key file, or a directory or symbolic link on its path, is not one this process's user
        /// (or root) alone controls, or cannot be checked: keys another user could plant, read or
        /// redirect are not used.
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
