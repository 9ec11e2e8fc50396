/// An AEAD cipher keyed for one direction of an NTS association (RFC 8915 §5.6). The core builds and
/// checks NTS packets through it; `TimeSyncNTS` gives AEAD_AES_SIV_CMAC_256.
public protocol NTSCipher: Sendable {
    /// Encrypts and authenticates `plaintext` with `associatedData` under `nonce`.
    /// - Returns: The ciphertext, its authentication tag included (for AES-SIV: the 16-byte synthetic
    ///   IV, then the encrypted plaintext).
    func seal(_ plaintext: [UInt8], nonce: [UInt8], associatedData: [UInt8]) -> [UInt8]
    /// Checks and decrypts `ciphertext`.
    /// - Returns: The plaintext; `nil` when the ciphertext, nonce or associated data were altered or
    ///   the key is not the one that sealed it.
    func open(_ ciphertext: [UInt8], nonce: [UInt8], associatedData: [UInt8]) -> [UInt8]?
}

/// The NTP extension field types of NTS (RFC 8915 §5.3).
public enum NTSExtensionFieldType {
    /// Unique Identifier: ≥ 32 random bytes a reply echoes.
    public static let uniqueIdentifier: UInt16 = 0x0104
    /// NTS Cookie: one cookie from the key exchange or an earlier reply.
    public static let cookie: UInt16 = 0x0204
    /// NTS Cookie Placeholder: asks for one more cookie, as long as the cookie sent.
    public static let cookiePlaceholder: UInt16 = 0x0304
    /// NTS Authenticator and Encrypted Extension Fields: the nonce and the AEAD output.
    public static let authenticator: UInt16 = 0x0404
}

/// The NTS Kiss-o'-Death code: the server could not use the request's cookie (NTS NAK).
extension NTPReferenceID {
    /// `NTSN`: the server could not decrypt the cookie (its key rotated out, or a forged cookie);
    /// the client needs new cookies from a key exchange.
    public static let ntsNegativeAcknowledgment = NTPReferenceID(ascii: "NTSN")!
}

/// Building and reading NTS extension fields.
package enum NTSFields {
    /// The nonce length sent: what AES-SIV needs for its full strength.
    package static let nonceLength = 16

    /// `bytes` padded with zeros to a multiple of 4 and at least 12 (the smallest extension field
    /// value, RFC 7822).
    package static func padded(_ bytes: [UInt8]) -> [UInt8] {
        bytes + [UInt8](repeating: 0, count: paddedLength(bytes.count) - bytes.count)
    }

    /// The length of a value of `count` bytes once padded (``padded(_:)``).
    package static func paddedLength(_ count: Int) -> Int {
        max(12, (count + 3) / 4 * 4)
    }

    /// The size of the Authenticator field sealing `plaintext` bytes under a ``nonceLength``-byte
    /// nonce: type and length, the two lengths, the nonce and the tag with the ciphertext, each padded.
    package static func authenticatorSize(plaintext: Int) -> Int {
        4 + 4 + (nonceLength + 3) / 4 * 4 + (16 + plaintext + 3) / 4 * 4
    }

    /// An Authenticator field's value: nonce length, ciphertext length, nonce and ciphertext, each padded.
    package static func authenticator(nonce: [UInt8], ciphertext: [UInt8]) -> NTPExtensionField {
        var value = UInt16(nonce.count).bigEndianBytes + UInt16(ciphertext.count).bigEndianBytes
        value += nonce + [UInt8](repeating: 0, count: (4 - nonce.count % 4) % 4)
        value += ciphertext + [UInt8](repeating: 0, count: (4 - ciphertext.count % 4) % 4)
        return NTPExtensionField(type: NTSExtensionFieldType.authenticator, value: value)
    }

    /// The nonce and ciphertext of an Authenticator field; `nil` when its lengths do not fit.
    package static func readAuthenticator(_ field: NTPExtensionField) -> (nonce: [UInt8], ciphertext: [UInt8])? {
        let value = field.value
        guard value.count >= 4 else { return nil }
        let nonceLength = Int(value[0]) << 8 | Int(value[1])
        let ciphertextLength = Int(value[2]) << 8 | Int(value[3])
        let nonceEnd = 4 + (nonceLength + 3) / 4 * 4
        guard nonceLength >= 1, ciphertextLength >= 16, nonceEnd + ciphertextLength <= value.count else { return nil }
        return (Array(value[4..<4 + nonceLength]), Array(value[nonceEnd..<nonceEnd + ciphertextLength]))
    }

    /// The bytes a packet's Authenticator field authenticates without encrypting: the header and every
    /// extension field before it, as on the wire.
    package static func associatedData(_ packet: NTPPacket, before index: Int) -> [UInt8] {
        var prefix = packet
        prefix.extensionFields = Array(packet.extensionFields[..<index])
        prefix.messageAuthenticationCode = nil
        return prefix.encoded()
    }

    /// Extension fields encoded back to back (the plaintext of encrypted fields).
    package static func encode(_ fields: [NTPExtensionField]) -> [UInt8] {
        var bytes: [UInt8] = []
        for field in fields { field.append(to: &bytes) }
        return bytes
    }

    /// Extension fields read back to back from decrypted bytes; `nil` when they do not parse.
    package static func decode(_ bytes: [UInt8]) -> [NTPExtensionField]? {
        var fields: [NTPExtensionField] = []
        var index = 0
        while index < bytes.count {
            guard bytes.count - index >= 4 else { return nil }
            let type = UInt16(bytes[index]) << 8 | UInt16(bytes[index + 1])
            let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            guard length >= 4, length % 4 == 0, index + length <= bytes.count else { return nil }
            fields.append(NTPExtensionField(type: type, value: Array(bytes[index + 4..<index + length])))
            index += length
        }
        return fields
    }
}
