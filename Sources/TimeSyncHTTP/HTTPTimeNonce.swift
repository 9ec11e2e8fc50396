import RawStructuredFieldValues
import TimeSync

/// Client nonces for the `TimeSync-Nonce` request header: 16 characters of `[A-Za-z0-9]`, so a
/// cached or replayed response (which echoes an older nonce, or none) is recognised.
package enum HTTPTimeNonce {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)

    /// A nonce from the system's random number generator.
    package static func random() -> String {
        var generator = SystemRandomNumberGenerator()
        return random(using: &generator)
    }

    /// A nonce from the given generator (pass a seeded one in tests).
    /// - Parameter generator: The source of randomness.
    package static func random(using generator: inout some RandomNumberGenerator) -> String {
        String(decoding: (0..<16).map { _ in alphabet.randomElement(using: &generator)! }, as: UTF8.self)
    }

    /// Whether a value can travel as an RFC 9651 string of at most
    /// `HTTPTimeHeader.maximumNonceLength` characters (printable ASCII).
    package static func isValid(_ nonce: String) -> Bool {
        let bytes = nonce.utf8
        return !bytes.isEmpty && bytes.count <= HTTPTimeHeader.maximumNonceLength
            && bytes.allSatisfy { $0 >= 0x20 && $0 <= 0x7E }
    }

    /// The request's nonce from a `TimeSync-Nonce` field value (an RFC 9651 string), or `nil` when it
    /// is not one or is too long to echo.
    package static func parse(_ fieldValue: some StringProtocol) -> String? {
        var parser = StructuredFieldValueParser(Array(fieldValue.utf8))
        guard let item = try? parser.parseItemFieldValue(), case .string(let value) = item.rfc9651BareItem,
            isValid(value)
        else { return nil }
        return value
    }

    /// The `TimeSync-Nonce` field value for a nonce.
    /// - Precondition: ``isValid(_:)``.
    package static func fieldValue(_ nonce: String) -> String {
        var serializer = StructuredFieldValueSerializer()
        let bytes = (try? serializer.writeItemFieldValue(Item(bareItem: RFC9651BareItem.string(nonce), parameters: OrderedMap<String, RFC9651BareItem>()))) ?? []
        return String(decoding: bytes, as: UTF8.self)
    }
}
