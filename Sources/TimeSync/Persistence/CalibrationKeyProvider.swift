import Foundation

/// Supplies the secret key a ``ServerClock`` authenticates its stored calibration with.
///
/// A stored calibration carries an HMAC-SHA256 tag made with a random key of this install, kept apart
/// from the store: a store edited by hand, restored from another device's backup, or written by
/// anything that does not hold the key fails to verify and is ignored. The key must therefore live
/// where the store's attacker cannot read it — not in the same file, not in the same preferences.
///
/// ``SystemCalibrationKeyProvider`` is the default: the Keychain on Apple platforms (this device only,
/// not in backups), a private key file on Linux. Supply your own to keep the key elsewhere (a secrets
/// service, a hardware token).
public protocol CalibrationKeyProvider: Sendable {
    /// The key: at least 32 random bytes, the same on every call for this install; created on first
    /// use.
    /// - Throws: Any error: the clock then neither restores nor saves, and says why in a warning.
    func key() throws -> [UInt8]
}

extension CalibrationKeyProvider {
    /// The key's required minimum length: 32 bytes, as long as SHA-256's output.
    public static var minimumKeyLength: Int { 32 }

    /// 32 bytes from the system's cryptographic random number generator.
    static func randomKey() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<4).flatMap { _ in withUnsafeBytes(of: generator.next()) { Array($0) } }
    }
}
