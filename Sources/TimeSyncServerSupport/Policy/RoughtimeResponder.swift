import Crypto
import TimeSync
import TimeSyncWire

/// Why a Roughtime server sent nothing back.
public enum RoughtimeDropReason: CodedError, Hashable {
    /// Shorter than 1024 bytes: answering would amplify a forged source's traffic.
    case tooShort
    /// Not a request: the framing, layout or a value is wrong.
    case malformed
    /// No version it offers is one this server speaks (the protocol says: stay silent).
    case unsupportedVersion
    /// Its SRV names another server's key.
    case otherServer
    /// The reply would be larger than the request.
    case replyTooLarge
    /// The online key's window does not cover the current time (the transport rotates it first).
    case delegationExpired
    /// Its sender's address is over the server's rate limit: dropped before it was signed (a
    /// server's transport decides this; `RoughtimeResponder` never does).
    case rateLimited

    /// The error itself: each case is its own code.
    public var code: Self { self }

    public var description: String {
        switch self {
        case .tooShort: "too short"
        case .malformed: "malformed"
        case .unsupportedVersion: "no common version"
        case .otherServer: "SRV names another server"
        case .replyTooLarge: "reply larger than request"
        case .delegationExpired: "online key outside its window"
        case .rateLimited: "client over its rate limit"
        }
    }
}

/// The Roughtime server's logic, without sockets: requests in, replies out.
///
/// Requests that arrive together are answered with one signature: their leaves form a Merkle
/// tree, the server signs the root once, and each reply carries its path. Signing is the cost of a
/// reply, so a batch of 64 costs about one signature instead of 64.
package struct RoughtimeResponder: Sendable {
    /// The server's long-term public key (what clients pin).
    package let publicKey: [UInt8]
    /// The online key and its certificate; replace it (``delegate(validity:)``) before it expires.
    package private(set) var delegation: RoughtimeDelegation
    /// RADI, in seconds: how far the true time may lie from the midpoint (the midpoint's rounding to
    /// whole seconds, and the server clock's own error). At least 3, the protocol's minimum.
    package let radius: UInt32
    /// The versions answered, most preferred first.
    package let versions: [RoughtimeVersion]
    private let longTermKey: Curve25519.Signing.PrivateKey
    private let serverIdentifier: [UInt8]
    private let versionList: [UInt8]

    /// A responder for a long-term key.
    /// - Parameters:
    ///   - longTermKey: The server's long-term private key.
    ///   - validity: The first online key's window, seconds since 1970.
    ///   - radius: RADI in seconds; raised to 3 if lower.
    ///   - versions: The versions to answer (by default every framed one).
    package init(
        longTermKey: Curve25519.Signing.PrivateKey, validity: ClosedRange<UInt64>, radius: UInt32 = 3,
        versions: [RoughtimeVersion] = RoughtimeVersion.served
    ) throws {
        self.longTermKey = longTermKey
        publicKey = Array(longTermKey.publicKey.rawRepresentation)
        serverIdentifier = RoughtimeMerkle.serverIdentifier(publicKey: publicKey)
        delegation = try RoughtimeDelegation(longTermKey: longTermKey, validity: validity)
        self.radius = max(3, radius)
        self.versions = Array(Set(versions.filter(\.isFramed))).sorted()
        versionList = self.versions.compactMap(\.wireValue).sorted().flatMap(RoughtimeMessage.uint32Bytes)
    }

    /// Delegates a new online key for `validity` (seconds since 1970); replies signed from now on use it.
    package mutating func delegate(validity: ClosedRange<UInt64>) throws {
        delegation = try RoughtimeDelegation(longTermKey: longTermKey, validity: validity)
    }

    /// Delegates a new online key when the current one's window has not begun at `now`, or ends
    /// within a quarter of `lifetime` after it: replies never go out under an expired delegation,
    /// and a server whose clock was stepped back gets a window that covers its new time.
    ///
    /// The new window runs from an hour before `now` (a clock stepped back a little stays covered)
    /// to `lifetime` after it.
    /// - Parameters:
    ///   - now: The server's time.
    ///   - lifetime: How long an online key serves, at least a minute.
    /// - Returns: Whether a new key was delegated.
    package mutating func renewDelegation(now: UnixTime, lifetime: Duration) throws -> Bool {
        // Both below 2^63: their sum fits in 64 unsigned bits.
        let seconds = UInt64(max(0, now.seconds))
        let margin = UInt64(max(60, lifetime.components.seconds) / 4)
        guard seconds < delegation.validity.lowerBound || seconds + margin >= delegation.validity.upperBound else { return false }
        try delegate(validity: RoughtimeResponder.window(now: now, lifetime: lifetime))
        return true
    }

    /// The window a fresh online key gets at `now`: from an hour before to `lifetime` (at least a
    /// minute) after, in whole seconds since 1970.
    package static func window(now: UnixTime, lifetime: Duration) -> ClosedRange<UInt64> {
        // Both below 2^63: their sum fits in 64 unsigned bits.
        let seconds = UInt64(max(0, now.seconds))
        return (seconds >= 3_600 ? seconds - 3_600 : 0)...(seconds + UInt64(max(60, lifetime.components.seconds)))
    }

    /// Answers the requests that arrived together, signing once per version among them.
    /// - Parameters:
    ///   - requests: The datagrams, as received.
    ///   - now: The server's time; the midpoint is it, rounded to the second.
    /// - Returns: One action per request, in order: the reply to send, or why none is sent.
    /// - Complexity: O(n log n) hashing for n requests, plus one signature per version present.
    package func respond(to requests: [[UInt8]], now: UnixTime) -> [Result<[UInt8], RoughtimeDropReason>] {
        var results = [Result<[UInt8], RoughtimeDropReason>](repeating: .failure(.malformed), count: requests.count)
        let midpoint = UInt64(clamping: (now.nanoseconds.saturatingAdd(500_000_000)).flooredDivision(by: 1_000_000_000))
        guard delegation.validity.contains(midpoint) else {
            return results.map { _ in .failure(.delegationExpired) }
        }
        var batches: [RoughtimeVersion: [(index: Int, request: RoughtimeRequest)]] = [:]
        for (index, packet) in requests.enumerated() {
            switch admit(packet) {
            case .success(let (request, version)): batches[version, default: []].append((index, request))
            case .failure(let reason): results[index] = .failure(reason)
            }
        }
        for (version, batch) in batches {
            let leaves = batch.map { RoughtimeMerkle.leafHash($0.request.leaf(for: version), length: version.hashLength) }
            let tree = RoughtimeMerkle.tree(leaves: leaves)
            var signed: [(RoughtimeTag, [UInt8])] = [
                (.root, tree.root),
                (.midpoint, RoughtimeMessage.uint64Bytes(midpoint)),
                (.radius, RoughtimeMessage.uint32Bytes(radius)),
            ]
            if version.signsVersion {
                signed.append((.version, RoughtimeMessage.uint32Bytes(version.wireValue!)))
                signed.append((.versions, versionList))
            }
            let signedResponse = RoughtimeMessage.encode(signed)
            guard let signature = try? delegation.signingKey.signature(for: RoughtimeVersion.responseContext + signedResponse) else {
                for entry in batch { results[entry.index] = .failure(.delegationExpired) }
                continue
            }
            let certificate = delegation.certificate(for: version)
            for (position, entry) in batch.enumerated() {
                var fields: [(RoughtimeTag, [UInt8])] = [
                    (.signature, Array(signature)),
                    (.nonce, entry.request.nonce),
                    (.path, tree.paths[position]),
                    (.signedResponse, signedResponse),
                    (.certificate, certificate),
                    (.index, RoughtimeMessage.uint32Bytes(UInt32(position))),
                ]
                if version.signsVersion {
                    fields.append((.type, RoughtimeMessage.uint32Bytes(1)))
                } else {
                    fields.append((.version, RoughtimeMessage.uint32Bytes(version.wireValue!)))
                }
                let reply = RoughtimePacket.frame(RoughtimeMessage.encode(fields))
                results[entry.index] = reply.count <= entry.request.packet.count ? .success(reply) : .failure(.replyTooLarge)
            }
        }
        return results
    }

    /// Parses a request and picks the version to answer in: the most preferred one both speak.
    private func admit(_ packet: [UInt8]) -> Result<(RoughtimeRequest, RoughtimeVersion), RoughtimeDropReason> {
        guard packet.count >= RoughtimeRequest.minimumLength else { return .failure(.tooShort) }
        let request: RoughtimeRequest
        do {
            request = try RoughtimeRequest(parsing: packet)
        } catch {
            return .failure(error.code == .unsupportedVersion ? .unsupportedVersion : .malformed)
        }
        guard let version = request.versions.first(where: versions.contains) else { return .failure(.unsupportedVersion) }
        if let identifier = request.serverIdentifier, identifier != serverIdentifier { return .failure(.otherServer) }
        return .success((request, version))
    }
}
