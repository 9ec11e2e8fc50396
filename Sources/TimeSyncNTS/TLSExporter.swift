#if NTS
import Crypto
import NIOConcurrencyHelpers
import NIOCore
import NIOSSL
import TimeSync
import TimeSyncWire

/// The NTS keys of a TLS 1.3 session (RFC 8915 §5.1), derived by the TLS exporter of RFC 8446 §7.5
/// from the session's exporter secret.
///
/// swift-nio-ssl has no exporter API; it reports the exporter secret through its key-log callback
/// (`EXPORTER_SECRET <client random> <secret>`), and the exporter is HKDF-Expand-Label over it. One TLS
/// context per key exchange, so the one secret it logs is that exchange's. This file goes when the TLS
/// stack gains `export_keying_material`.
enum TLSExporter {
    /// The exporter label of NTS.
    static let label = "EXPORTER-network-time-security"

    /// A key-log callback that keeps the session's exporter secret in `secret`.
    static func keyLog(into secret: NIOLockedValueBox<[UInt8]?>) -> NIOSSLKeyLogCallback {
        { line in
            if let value = exporterSecret(inKeyLogLine: line) { secret.withLockedValue { $0 = value } }
        }
    }

    /// The exporter secret in one key-log line, or `nil` for any other line.
    static func exporterSecret(inKeyLogLine line: ByteBuffer) -> [UInt8]? {
        let parts = String(buffer: line).split(whereSeparator: \.isWhitespace)
        guard parts.count == 3, parts[0] == "EXPORTER_SECRET" else { return nil }
        return Hex.decode(parts[2])
    }

    /// The client-to-server and server-to-client keys for NTPv4 with `algorithm`.
    /// - Parameters:
    ///   - exporterSecret: The session's exporter secret (32 bytes for a SHA-256 suite, 48 for SHA-384).
    ///   - algorithm: The AEAD negotiated.
    ///   - length: The key length of that AEAD.
    static func keys(exporterSecret: [UInt8], algorithm: UInt16, length: Int) -> (clientToServer: [UInt8], serverToClient: [UInt8]) {
        func context(_ direction: UInt8) -> [UInt8] {
            [0, 0, UInt8(algorithm >> 8), UInt8(truncatingIfNeeded: algorithm), direction]
        }
        return (
            export(secret: exporterSecret, label: label, context: context(0), length: length),
            export(secret: exporterSecret, label: label, context: context(1), length: length)
        )
    }

    /// TLS-Exporter(label, context, length) = HKDF-Expand-Label(Derive-Secret(secret, label, ""),
    /// "exporter", Hash(context), length), with the hash the secret's length implies.
    static func export(secret: [UInt8], label: String, context: [UInt8], length: Int) -> [UInt8] {
        if secret.count == 48 {
            let derived = expandLabel(SHA384.self, secret: secret, label: label, context: Array(SHA384.hash(data: [UInt8]())), length: 48)
            return expandLabel(SHA384.self, secret: derived, label: "exporter", context: Array(SHA384.hash(data: context)), length: length)
        }
        let derived = expandLabel(SHA256.self, secret: secret, label: label, context: Array(SHA256.hash(data: [UInt8]())), length: 32)
        return expandLabel(SHA256.self, secret: derived, label: "exporter", context: Array(SHA256.hash(data: context)), length: length)
    }

    /// HKDF-Expand-Label (RFC 8446 §7.1).
    static func expandLabel<H: HashFunction>(_ hash: H.Type, secret: [UInt8], label: String, context: [UInt8], length: Int) -> [UInt8] {
        let fullLabel = Array("tls13 \(label)".utf8)
        var info: [UInt8] = [UInt8(length >> 8), UInt8(truncatingIfNeeded: length), UInt8(fullLabel.count)]
        info += fullLabel
        info.append(UInt8(context.count))
        info += context
        let key = HKDF<H>.expand(pseudoRandomKey: SymmetricKey(data: secret), info: info, outputByteCount: length)
        return key.withUnsafeBytes { Array($0) }
    }
}
#endif
