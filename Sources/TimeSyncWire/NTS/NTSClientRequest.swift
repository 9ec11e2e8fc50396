import TimeSync

/// One outstanding NTS-protected NTP request and the checks its reply must pass (RFC 8915 §5).
///
/// Sans-IO, like `NTPClientRequest` which it wraps: the request carries a fresh 32-byte Unique
/// Identifier, one cookie (never sent twice), a placeholder for each further cookie wanted, and an
/// Authenticator sealed with the client-to-server key. A reply is used only if it echoes the origin
/// timestamp and the identifier and its Authenticator opens with the server-to-client key; the new
/// cookies are read from its encrypted fields only.
package struct NTSClientRequest: Sendable {
    /// The Unique Identifier sent, which a genuine reply echoes.
    package let uniqueIdentifier: [UInt8]
    /// The NTP request underneath: its origin check and reply validation.
    package private(set) var ntp: NTPClientRequest
    /// The datagram to send.
    package let bytes: [UInt8]

    /// Builds a request.
    /// - Parameters:
    ///   - ntp: The NTP request (its transmit timestamp, t1).
    ///   - cookie: The cookie to spend: take it out of the jar, it must never be sent again.
    ///   - placeholders: Further cookies to ask for (0–7): one placeholder each, as long as the cookie.
    ///   - cipher: The client-to-server key.
    ///   - generator: The source of the identifier and the nonce.
    package init(
        ntp: NTPClientRequest, cookie: [UInt8], placeholders: Int, cipher: some NTSCipher,
        using generator: inout some RandomNumberGenerator
    ) {
        self.ntp = ntp
        let identifier = generator.bytes(32)
        uniqueIdentifier = identifier
        let cookieValue = NTSFields.padded(cookie)
        var packet = ntp.packet
        packet.extensionFields = [
            NTPExtensionField(type: NTSExtensionFieldType.uniqueIdentifier, value: identifier),
            NTPExtensionField(type: NTSExtensionFieldType.cookie, value: cookieValue),
        ]
        for _ in 0..<min(max(0, placeholders), NTSKEResponse.maximumCookies - 1) {
            packet.extensionFields.append(
                NTPExtensionField(type: NTSExtensionFieldType.cookiePlaceholder, value: [UInt8](repeating: 0, count: cookieValue.count)))
        }
        let nonce = generator.bytes(NTSFields.nonceLength)
        // The Authenticator authenticates everything before it, and follows it on the wire.
        var bytes = packet.encoded()
        NTSFields.authenticator(nonce: nonce, ciphertext: cipher.seal([], nonce: nonce, associatedData: bytes)).append(to: &bytes)
        self.bytes = bytes
    }

    /// Checks a datagram that arrived for this request.
    ///
    /// In order, the first failure throws:
    /// 1. the bytes decode (`NTPReplyError.malformedPacket`, wrapped);
    /// 2. the origin timestamp is ours (`.originMismatch`, wrapped);
    /// 3. a Unique Identifier field is there (`.unauthenticated`) and is ours (`.uniqueIdentifierMismatch`);
    /// 4. a Kiss-o'-Death `NTSN` is `.negativeAcknowledgment` (unauthenticated, as the protocol has it);
    /// 5. exactly one Authenticator field, the last one (`.unauthenticated`), which opens with the
    ///    server-to-client key over the header and the fields before it (`.authenticationFailed`),
    ///    its plaintext holding only well-formed extension fields (`.authenticationFailed`);
    /// 6. every check of `NTPClientRequest.accept(_:receivedAt:limits:)` (wrapped).
    ///
    /// Only a reply that passed step 5 can mark the request answered: a forged or altered datagram
    /// changes nothing, and the wait for the genuine reply goes on.
    /// - Returns: The validated reply and the cookies it carried (encrypted, so only the server could
    ///   have sent them).
    /// - Throws: ``NTSReplyError``.
    package mutating func accept(
        _ bytes: some Collection<UInt8>, receivedAt: MonotonicInstant, limits: NTPReplyLimits = .init(), cipher: some NTSCipher
    ) throws(NTSReplyError) -> (reply: NTPReply, cookies: [[UInt8]]) {
        let packet: NTPPacket
        do {
            packet = try NTPPacket(decoding: bytes)
        } catch {
            throw NTSReplyError(ntp: NTPReplyError(.malformedPacket, underlying: error))
        }
        guard packet.originTimestamp == ntp.transmitTimestamp else { throw NTSReplyError(ntp: .originMismatch) }
        let fields = packet.extensionFields
        guard let identifier = fields.first(where: { $0.type == NTSExtensionFieldType.uniqueIdentifier }) else {
            throw NTSReplyError(.unauthenticated, "no Unique Identifier field")
        }
        guard identifier.value == uniqueIdentifier else { throw NTSReplyError(.uniqueIdentifierMismatch) }
        if packet.stratum == 0, packet.referenceID == .ntsNegativeAcknowledgment { throw NTSReplyError(.negativeAcknowledgment) }
        let authenticators = fields.indices.filter { fields[$0].type == NTSExtensionFieldType.authenticator }
        guard authenticators.count == 1, let index = authenticators.first, index == fields.count - 1 else {
            throw NTSReplyError(.unauthenticated, authenticators.isEmpty ? "no Authenticator field" : "fields outside the Authenticator")
        }
        guard let sealed = NTSFields.readAuthenticator(fields[index]) else {
            throw NTSReplyError(.authenticationFailed, "a malformed Authenticator field")
        }
        guard let plaintext = cipher.open(sealed.ciphertext, nonce: sealed.nonce, associatedData: NTSFields.associatedData(packet, before: index)),
            let encrypted = NTSFields.decode(plaintext)
        else { throw NTSReplyError(.authenticationFailed) }
        let cookies = encrypted.filter { $0.type == NTSExtensionFieldType.cookie }.map(\.value)
        do {
            return (try ntp.accept(packet, receivedAt: receivedAt, limits: limits), cookies)
        } catch {
            throw NTSReplyError(ntp: error)
        }
    }
}
