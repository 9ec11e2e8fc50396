import Crypto
import TimeSync

/// A Roughtime reply that verified: the server's signed interval and what it was signed with.
///
/// Only ``verify(_:request:publicKey:)`` makes one: every signature, the Merkle path, the nonce, the
/// version and the delegation window checked.
public struct RoughtimeResponse: Sendable, Hashable {
    /// The version the server answered in.
    public let version: RoughtimeVersion
    /// MIDP: the server's time when it signed, in the version's unit (seconds; microseconds in
    /// Google's protocol).
    public let midpointValue: UInt64
    /// RADI: how far the true time may be from the midpoint, in the same unit.
    public let radiusValue: UInt32
    /// The delegated key's validity window (MINT…MAXT), in the same unit.
    public let validity: ClosedRange<UInt64>
    /// The delegated (online) public key that signed the reply.
    public let delegatedKey: [UInt8]
    /// The versions the server signed as its own (VERS), when the version carries them.
    public let serverVersions: [UInt32]?
    /// The packet as received.
    public let packet: [UInt8]

    /// The midpoint as a time.
    public var midpoint: UnixTime {
        UnixTime(nanoseconds: Int64(clamping: midpointValue).saturatingMultiply(version.nanosecondsPerUnit))
    }

    /// The radius as a duration.
    public var radius: Duration { .nanoseconds(Int64(radiusValue).saturatingMultiply(version.nanosecondsPerUnit)) }

    /// The signed interval, MIDP − RADI to MIDP + RADI, in the version's unit (saturating).
    public var intervalValue: ClosedRange<UInt64> {
        let radius = UInt64(radiusValue)
        let (upper, overflow) = midpointValue.addingReportingOverflow(radius)
        return (midpointValue >= radius ? midpointValue - radius : 0)...(overflow ? .max : upper)
    }

    /// Verifies a reply to `request` under the server's long-term `publicKey`.
    ///
    /// Checks, in order: the framing and every message's layout; the version (one the request
    /// offered; with VERS signed, none both sides prefer left out); TYPE; the echoed nonce; SRV
    /// against `publicKey`; the delegation's signature under `publicKey`; the reply's signature under
    /// the delegated key; the Merkle path from the request's leaf to the signed root; MINT ≤ MIDP ≤ MAXT.
    /// - Parameters:
    ///   - packet: The datagram received.
    ///   - request: The request it answers.
    ///   - publicKey: The server's long-term Ed25519 public key (32 bytes).
    /// - Returns: The verified reply.
    /// - Throws: ``RoughtimeError`` naming the first check that failed.
    public static func verify(_ packet: [UInt8], request: RoughtimeRequest, publicKey: [UInt8]) throws(RoughtimeError) -> RoughtimeResponse {
        guard publicKey.count == 32, let rootKey = try? Curve25519.Signing.PublicKey(rawRepresentation: publicKey) else {
            throw RoughtimeError(.badKey, "a public key is 32 bytes")
        }
        let framed = RoughtimePacket.isFramed(packet[...])
        let message = try RoughtimeMessage(decoding: framed ? try RoughtimePacket.unframe(packet[...]) : packet[...])
        let signedResponse = try message.message(.signedResponse)
        let version = try version(of: message, signedResponse: signedResponse, framed: framed, request: request)

        var serverVersions: [UInt32]?
        if version.signsVersion {
            guard try message.uint32(.type) == 1 else { throw RoughtimeError(.wrongType, "a response's TYPE is 1") }
            let list = try signedResponse.value(.versions)
            guard !list.isEmpty, list.count % 4 == 0, list.count / 4 <= RoughtimeRequest.maximumVersions else {
                throw RoughtimeError(.badTagLength, "VERS has \(list.count) bytes")
            }
            let values = stride(from: list.startIndex, to: list.endIndex, by: 4).map { RoughtimeMessage.readUInt32(list, at: $0) }
            // Downgrade protection: the server signed what it speaks; a version both sides prefer
            // to the chosen one means someone edited the request's list on the way.
            let shared = values.compactMap(RoughtimeVersion.init(wireValue:)).filter(request.versions.contains)
            guard let chosenValue = version.wireValue, values.contains(chosenValue) else {
                throw RoughtimeError(.downgrade, "VERS does not list the chosen version \(version)")
            }
            if let best = shared.min(), best.signsVersion, best < version {
                throw RoughtimeError(.downgrade, "chose \(version) though both speak \(best)")
            }
            serverVersions = values
        }

        guard try message.value(.nonce, length: version.nonceLength).elementsEqual(request.nonce) else {
            throw RoughtimeError.nonceMismatch
        }
        if let identifier = request.serverIdentifier, identifier != RoughtimeMerkle.serverIdentifier(publicKey: publicKey) {
            throw RoughtimeError.serverMismatch
        }

        let certificate = try message.message(.certificate)
        let delegation = try certificate.value(.delegation)
        guard rootKey.isValidSignature(try certificate.value(.signature, length: 64), for: version.delegationContext + delegation) else {
            throw RoughtimeError.badDelegationSignature
        }
        let delegationMessage = try certificate.message(.delegation)
        let delegatedKey = Array(try delegationMessage.value(.publicKey, length: 32))
        guard let onlineKey = try? Curve25519.Signing.PublicKey(rawRepresentation: delegatedKey),
            onlineKey.isValidSignature(try message.value(.signature, length: 64), for: RoughtimeVersion.responseContext + signedResponse.bytes)
        else { throw RoughtimeError.badResponseSignature }

        let root = try signedResponse.value(.root, length: version.hashLength)
        let leaf = RoughtimeMerkle.leafHash(request.leaf(for: version), length: version.hashLength)
        let computed = try RoughtimeMerkle.root(leaf: leaf, path: try message.value(.path), index: try message.uint32(.index))
        guard root.elementsEqual(computed) else { throw RoughtimeError.merkleMismatch }

        let midpoint = try signedResponse.uint64(.midpoint)
        let radius = try signedResponse.uint32(.radius)
        let minimum = try delegationMessage.uint64(.minimumTime)
        let maximum = try delegationMessage.uint64(.maximumTime)
        guard minimum <= midpoint, midpoint <= maximum else {
            throw RoughtimeError(.midpointOutsideDelegation, "MIDP \(midpoint) outside \(minimum)…\(maximum)")
        }
        // A signed time beyond what a sample may carry is refused here, never saturated into a date.
        let (nanoseconds, overflow) = Int64(clamping: midpoint).multipliedReportingOverflow(by: version.nanosecondsPerUnit)
        guard midpoint <= UInt64(Int64.max), !overflow, SampleLimits.serverTimes.contains(UnixTime(nanoseconds: nanoseconds)) else {
            throw RoughtimeError(.timeOutOfRange, "MIDP \(midpoint) (\(version.nanosecondsPerUnit == 1_000 ? "microseconds" : "seconds") since 1970)")
        }
        return RoughtimeResponse(
            version: version, midpointValue: midpoint, radiusValue: radius, validity: minimum...maximum,
            delegatedKey: delegatedKey, serverVersions: serverVersions, packet: packet)
    }

    /// The version a reply is in: VER inside SREP (version 1, `0x8000000c`), VER at the top (drafts
    /// 8 and 11), or none (Google's, unframed); it must be one the request offered.
    private static func version(
        of message: RoughtimeMessage, signedResponse: RoughtimeMessage, framed: Bool, request: RoughtimeRequest
    ) throws(RoughtimeError) -> RoughtimeVersion {
        let version: RoughtimeVersion
        if !framed {
            version = .google
        } else {
            // VER is signed inside SREP (version 1, 0x8000000c, and some servers' older drafts), at the
            // top (drafts 8 and 11), or both, when they must agree.
            let signed = signedResponse[.version] != nil ? try signedResponse.uint32(.version) : nil
            let unsigned = message[.version] != nil ? try message.uint32(.version) : nil
            guard let value = signed ?? unsigned else { throw RoughtimeError(.missingTag, "VER") }
            if let signed, let unsigned, signed != unsigned {
                throw RoughtimeError(.malformedMessage, "VER 0x\(String(unsigned, radix: 16)) outside SREP, 0x\(String(signed, radix: 16)) inside")
            }
            guard let known = RoughtimeVersion(wireValue: value) else {
                throw RoughtimeError(.unsupportedVersion, "reply in 0x\(String(value, radix: 16))")
            }
            // Version 1 and 0x8000000c sign their version.
            guard !known.signsVersion || signed != nil else {
                throw RoughtimeError(.malformedMessage, "VER of \(known) outside SREP")
            }
            version = known
        }
        guard request.versions.contains(version) else { throw RoughtimeError(.versionNotOffered, "\(version)") }
        return version
    }
}

extension RoughtimeResponse {
    /// The nonce a reply carries, read without verifying anything: for a load generator that matches
    /// replies to its requests before verifying each with ``verify(_:request:publicKey:)``. `nil` for a
    /// packet that is not a Roughtime message with a nonce.
    public static func unverifiedNonce(of packet: [UInt8]) -> [UInt8]? {
        guard let message = try? RoughtimeMessage(decoding: try RoughtimePacket.unframe(packet[...])),
            let nonce = try? message.value(.nonce)
        else { return nil }
        return Array(nonce)
    }
}
