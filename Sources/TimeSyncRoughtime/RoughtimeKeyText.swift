import Crypto
import Foundation
import TimeSync
import TimeSyncWire

/// Roughtime keys as text: a public key as base64 or hex of its 32 bytes, and a long-term private
/// key file as the 32-byte Ed25519 seed in base64 on one line (what `timesync roughtime keygen` writes
/// and `timesync serve --roughtime` reads).
public enum RoughtimeKeyText {
    /// Reads a long-term public key.
    /// - Parameter text: 32 bytes as base64, or as 64 hexadecimal digits (either case); surrounding
    ///   white space is ignored.
    /// - Returns: The key's 32 bytes.
    /// - Throws: `RoughtimeError.badKey` quoting the text.
    public static func publicKey(_ text: String) throws(RoughtimeError) -> [UInt8] {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if let data = Data(base64Encoded: trimmed), data.count == 32 { return Array(data) }
        if trimmed.count == 64, let bytes = Hex.decode(trimmed[...]) { return bytes }
        throw RoughtimeError(.badKey, "'\(trimmed)' is not 32 bytes of base64 or hex")
    }

    /// Reads a long-term private key file.
    /// - Parameter file: The file's path; it holds the 32-byte seed in base64 (surrounding white space
    ///   is ignored).
    /// - Returns: The signing key.
    /// - Throws: `RoughtimeError.badKey` naming the file when it cannot be read or holds no key.
    public static func privateKey(file: String) throws(RoughtimeError) -> Curve25519.Signing.PrivateKey {
        guard let data = FileManager.default.contents(atPath: file) else { throw RoughtimeError(.badKey, "cannot read \(file)") }
        return try privateKey(String(decoding: data, as: UTF8.self), file: file)
    }

    /// Reads the contents of a long-term private key file.
    /// - Parameters:
    ///   - text: The 32-byte seed in base64 (surrounding white space is ignored).
    ///   - file: What to name in the error (the file's path).
    /// - Throws: `RoughtimeError.badKey` naming `file` when the text holds no key.
    public static func privateKey(_ text: String, file: String) throws(RoughtimeError) -> Curve25519.Signing.PrivateKey {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let seed = Data(base64Encoded: trimmed), seed.count == 32, let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: seed) else {
            throw RoughtimeError(.badKey, "\(file) does not hold a 32-byte key in base64")
        }
        return key
    }

    /// The contents of a long-term private key file: the seed in base64 and a line break.
    public static func fileContents(_ key: Curve25519.Signing.PrivateKey) -> String {
        Data(key.rawRepresentation).base64EncodedString() + "\n"
    }

    /// A public key as base64, as a `roughtime://` URL's `key=` and server logs give it.
    public static func base64(_ key: Curve25519.Signing.PublicKey) -> String {
        Data(key.rawRepresentation).base64EncodedString()
    }
}
