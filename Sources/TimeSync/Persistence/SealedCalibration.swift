import Crypto
import Foundation

/// A stored calibration's outer form: the calibration's JSON and an HMAC-SHA256 tag over those exact
/// bytes, made with this install's key (``CalibrationKeyProvider``).
///
/// ```json
/// {"content":"<base64 of the PersistedCalibration JSON>","format":"timesync-calibration","tag":"<base64>","version":2}
/// ```
/// Restoring checks the tag before it decodes anything inside: a store edited by hand, copied from
/// another install, or written without the key is ignored like a corrupt one.
struct SealedCalibration: Codable, Sendable, Hashable {
    /// The format's name, so that a foreign JSON file is told apart from a damaged store.
    static let formatName = "timesync-calibration"

    var format: String
    var version: Int
    /// The `PersistedCalibration` JSON.
    var content: Data
    /// HMAC-SHA256(key, content).
    var tag: Data

    /// Why sealed bytes did not open (what `PersistedCalibration.content(ofSealed:key:)` throws).
    enum OpenError: CodedError, Hashable {
        case notSealed(String)
        case wrongVersion(Int)
        case badTag

        /// The error itself: each case is its own code.
        var code: Self { self }

        var description: String {
            switch self {
            case .notSealed(let detail): "not an authenticated calibration store (\(detail))"
            case .wrongVersion(let version): "store format version \(version), expected \(PersistedCalibration.currentVersion)"
            case .badTag: "authentication tag does not verify: the store was edited, or written without this install's key"
            }
        }
    }

    /// HMAC-SHA256 of `data` under `key`.
    static func tag(_ data: Data, key: [UInt8]) -> Data {
        Data(HMAC<SHA256>.authenticationCode(for: data, using: SymmetricKey(data: key)))
    }

    /// Seals content with a key.
    static func seal(_ content: Data, key: [UInt8]) throws -> Data {
        let sealed = SealedCalibration(
            format: formatName, version: PersistedCalibration.currentVersion, content: content, tag: tag(content, key: key))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(sealed)
    }

    /// The content of sealed bytes whose tag verifies.
    /// - Complexity: O(n) in the size of the bytes: one JSON decode and one HMAC.
    static func open(_ data: Data, key: [UInt8]) throws(OpenError) -> Data {
        let sealed: SealedCalibration
        do {
            sealed = try JSONDecoder().decode(SealedCalibration.self, from: data)
        } catch {
            throw .notSealed("\(error)")
        }
        guard sealed.format == formatName else { throw .notSealed("format \"\(sealed.format.prefix(64))\"") }
        guard sealed.version == PersistedCalibration.currentVersion else { throw .wrongVersion(sealed.version) }
        guard HMAC<SHA256>.isValidAuthenticationCode(sealed.tag, authenticating: sealed.content, using: SymmetricKey(data: key))
        else { throw .badTag }
        return sealed.content
    }
}
