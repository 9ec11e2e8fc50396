/// A Roughtime request: the versions offered, the nonce, and the packet as sent (which the reply's
/// Merkle leaf covers in version 1 and `0x8000000c`).
public struct RoughtimeRequest: Sendable, Hashable {
    /// The smallest request a server answers, and the size this side pads its requests to: a reply is
    /// never larger than its request, so a forged source address gains an attacker nothing.
    public static let minimumLength = 1024
    /// The most versions a request may offer.
    public static let maximumVersions = 32

    /// The versions offered, most preferred first (Google's protocol offers none on the wire).
    public let versions: [RoughtimeVersion]
    /// The version numbers as listed on the wire, including ones this side does not speak.
    public let offeredWireValues: [UInt32]
    /// The nonce the reply must echo and its leaf covers.
    public let nonce: [UInt8]
    /// The server's long-term key named by SRV, as its 32-byte identifier, if the request names one.
    public let serverIdentifier: [UInt8]?
    /// The whole packet.
    public let packet: [UInt8]

    /// Builds a request padded to ``minimumLength``.
    /// - Parameters:
    ///   - versions: The versions to offer. Google's protocol cannot be offered with others (its
    ///     request has another shape); the framed ones go into VER in increasing numeric order.
    ///   - nonce: 32 random bytes (64 for Google's protocol), or a chained nonce
    ///     (``RoughtimeChain``).
    ///   - serverKey: The server's long-term public key, when it is pinned: named in SRV by the
    ///     versions that have it, so a server holding several keys signs with this one.
    /// - Precondition: at least one version; Google's alone; a nonce of the versions' length.
    public init(versions: [RoughtimeVersion], nonce: [UInt8], serverKey: [UInt8]? = nil) {
        precondition(!versions.isEmpty, "a request offers a version")
        precondition(!versions.contains(.google) || versions == [.google], "Google's protocol is offered alone")
        let ordered = Array(Set(versions)).sorted()
        precondition(nonce.count == ordered[0].nonceLength, "the nonce has the versions' length")
        self.versions = ordered
        self.nonce = nonce
        let google = ordered == [.google]
        var fields: [(RoughtimeTag, [UInt8])] = [(.nonce, nonce)]
        var wireValues: [UInt32] = []
        var identifier: [UInt8]?
        if !google {
            wireValues = ordered.compactMap(\.wireValue).sorted()
            fields.append((.version, wireValues.flatMap(RoughtimeMessage.uint32Bytes)))
            if ordered.contains(where: \.signsVersion) { fields.append((.type, RoughtimeMessage.uint32Bytes(0))) }
            if let serverKey, ordered.contains(where: \.hasServerTag) {
                identifier = RoughtimeMerkle.serverIdentifier(publicKey: serverKey)
                fields.append((.server, identifier!))
            }
        }
        offeredWireValues = wireValues
        serverIdentifier = identifier
        // Header: 12 bytes of framing (none for Google), 4 for the count, 8 per tag but one offset fewer.
        let padding = RoughtimeTag(rawValue: ordered[0].paddingTag.rawValue)
        let used = (google ? 0 : RoughtimePacket.headerLength) + 8 * (fields.count + 1) + fields.reduce(0) { $0 + $1.1.count }
        fields.append((padding, [UInt8](repeating: 0, count: max(0, Self.minimumLength - used))))
        let message = RoughtimeMessage.encode(fields)
        packet = google ? message : RoughtimePacket.frame(message)
    }

    /// Parses a request as a server receives it (or as a report carries it).
    /// - Throws: ``RoughtimeError``: `.requestTooShort` under ``minimumLength`` bytes; a message
    ///   error; `.wrongType` for a TYPE other than 0; `.badTagLength` for a nonce, SRV or VER of the
    ///   wrong size; `.unsupportedVersion` when no offered version is spoken here.
    public init(parsing packet: [UInt8]) throws(RoughtimeError) {
        guard packet.count >= Self.minimumLength else { throw RoughtimeError(.requestTooShort, "\(packet.count) bytes") }
        self.packet = packet
        let framed = RoughtimePacket.isFramed(packet[...])
        let message = try RoughtimeMessage(decoding: framed ? try RoughtimePacket.unframe(packet[...]) : packet[...])
        if !framed {
            nonce = Array(try message.value(.nonce, length: RoughtimeVersion.google.nonceLength))
            versions = [.google]
            offeredWireValues = []
            serverIdentifier = nil
            return
        }
        let list = try message.value(.version)
        guard !list.isEmpty, list.count % 4 == 0, list.count / 4 <= Self.maximumVersions else {
            throw RoughtimeError(.badTagLength, "VER has \(list.count) bytes (1 to \(Self.maximumVersions) versions)")
        }
        offeredWireValues = stride(from: list.startIndex, to: list.endIndex, by: 4).map { RoughtimeMessage.readUInt32(list, at: $0) }
        versions = Array(Set(offeredWireValues.compactMap(RoughtimeVersion.init(wireValue:)))).sorted()
        guard !versions.isEmpty else {
            throw RoughtimeError(.unsupportedVersion, "offered " + offeredWireValues.map { "0x" + String($0, radix: 16) }.joined(separator: ", "))
        }
        if let type = message[.type] {
            guard type.count == 4 else { throw RoughtimeError(.badTagLength, "TYPE has \(type.count) bytes") }
            guard RoughtimeMessage.readUInt32(type, at: type.startIndex) == 0 else { throw RoughtimeError(.wrongType, "a request's TYPE is 0") }
        }
        nonce = Array(try message.value(.nonce, length: 32))
        if let identifier = message[.server] {
            guard identifier.count == 32 else { throw RoughtimeError(.badTagLength, "SRV has \(identifier.count) bytes, not 32") }
            serverIdentifier = Array(identifier)
        } else {
            serverIdentifier = nil
        }
    }

    /// What the Merkle leaf of a reply in `version` covers: the whole packet, or the nonce.
    public func leaf(for version: RoughtimeVersion) -> ArraySlice<UInt8> {
        version.leafIsWholeRequest ? packet[...] : nonce[...]
    }
}
