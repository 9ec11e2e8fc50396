#if canImport(Security)
import Foundation
import Security

/// A calibration key in the Keychain: the default on Apple platforms.
///
/// A generic password item, accessible after the first unlock and on this device only
/// (`kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly`): it is not in backups and does not move to
/// another device, so a store edited in a backup, or restored on another device, fails to verify.
/// Created on first use with 32 random bytes.
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
        var query = baseQuery()
        query[kSecReturnData as String] = true
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        var item: CFTypeRef?
        let found = SecItemCopyMatching(query as CFDictionary, &item)
        if found == errSecSuccess, let data = item as? Data, data.count >= Self.minimumKeyLength {
            return Array(data)
        }
        guard found == errSecItemNotFound else {
            throw CalibrationKeyError("Keychain read failed (OSStatus \(found))")
        }
        let key = Self.randomKey()
        var add = baseQuery()
        add[kSecValueData as String] = Data(key)
        add[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
        let added = SecItemAdd(add as CFDictionary, nil)
        if added == errSecDuplicateItem { return try self.key() }  // another thread added it first
        guard added == errSecSuccess else { throw CalibrationKeyError("Keychain write failed (OSStatus \(added))") }
        return key
    }

    private func baseQuery() -> [String: Any] {
        var query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecAttrAccount as String: account,
        ]
        if let accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
        return query
    }
}
#endif
