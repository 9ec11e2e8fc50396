#if canImport(Security)
import Foundation
import Security

/// A calibration key in the Keychain: the default on Apple platforms.
///
/// A generic password item in the data protection Keychain (`kSecUseDataProtectionKeychain`, so on
/// macOS too it is kept as on iOS rather than in the file-based login keychain), accessible after the
/// first unlock and on this device only (`kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly`): it is
/// not in backups and does not move to another device, so a store edited in a backup, or restored on
/// another device, fails to verify. Created on first use with 32 random bytes.
///
/// Before the device's first unlock after a restart the Keychain refuses the read; the clock then
/// asks again at each write (``ServerClock``).
public struct KeychainCalibrationKeyProvider: CalibrationKeyProvider {
    /// The item's service attribute.
    public let service: String
    /// The item's account attribute.
    public let account: String
    /// The Keychain access group to share the key with app extensions, if any.
    public let accessGroup: String?

    /// A provider for one Keychain item.
    public init(service: String = "TimeSync", account: String = "calibration-key", accessGroup: String? = nil) {
        self.service = service
        self.account = account
        self.accessGroup = accessGroup
    }

    public func key() throws -> [UInt8] {
        switch keyOrStatus() {
        case .success(let key): return key
        case .failure(let failure): throw failure.error
        }
    }

    /// A Keychain call's failure, with its status.
    struct Failure: Error {
        var status: OSStatus
        var operation: String

        /// The process may not use the data protection Keychain: a macOS command-line tool signed
        /// without a keychain entitlement (`errSecMissingEntitlement`).
        var isMissingEntitlement: Bool { status == errSecMissingEntitlement }

        var error: CalibrationKeyError {
            switch status {
            case errSecInteractionNotAllowed:
                CalibrationKeyError(
                    .unavailable, "the Keychain is locked until the device is first unlocked (OSStatus \(status)); asked again later")
            case errSecMissingEntitlement:
                CalibrationKeyError(
                    .unavailable, "this process may not use the data protection Keychain (OSStatus \(status)): sign it with a keychain access group")
            default:
                CalibrationKeyError(.unavailable, "Keychain \(operation) failed (OSStatus \(status))")
            }
        }
    }

    func keyOrStatus() -> Result<[UInt8], Failure> {
        var query = baseQuery()
        query[kSecReturnData as String] = true
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        var item: CFTypeRef?
        let found = SecItemCopyMatching(query as CFDictionary, &item)
        if found == errSecSuccess, let data = item as? Data, data.count >= Self.minimumKeyLength {
            return .success(Array(data))
        }
        guard found == errSecItemNotFound else { return .failure(Failure(status: found, operation: "read")) }
        let key = Self.randomKey()
        var add = baseQuery()
        add[kSecValueData as String] = Data(key)
        add[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
        let added = SecItemAdd(add as CFDictionary, nil)
        if added == errSecDuplicateItem { return keyOrStatus() }  // another thread added it first
        guard added == errSecSuccess else { return .failure(Failure(status: added, operation: "write")) }
        return .success(key)
    }

    private func baseQuery() -> [String: Any] {
        var query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecAttrAccount as String: account,
            kSecUseDataProtectionKeychain as String: true,
        ]
        if let accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
        return query
    }
}

#endif
