/// A store's key, read from its provider as soon as the provider can give it, then kept.
///
/// A provider may refuse for a while and succeed later: the Keychain refuses to read an item
/// accessible after the first unlock until the device has been unlocked once since it started (an app
/// launched in the background after a reboot). Each write asks again until a read succeeds, so
/// persistence starts then instead of staying off for the life of the process.
package final class CalibrationKeyHolder: Sendable {
    private let provider: any CalibrationKeyProvider
    private let key = Locked<[UInt8]?>(nil)

    package init(provider: any CalibrationKeyProvider) {
        self.provider = provider
    }

    /// The key: the one read before, or the provider's now.
    /// - Throws: The provider's error, or `CalibrationKeyError` for a key shorter than 32 bytes.
    package func current() throws -> [UInt8] {
        if let known = key.withLock({ $0 }) { return known }
        let fresh = try provider.key()
        guard fresh.count >= SystemCalibrationKeyProvider.minimumKeyLength else {
            throw CalibrationKeyError(.keyTooShort, "the key has \(fresh.count) bytes, fewer than \(SystemCalibrationKeyProvider.minimumKeyLength)")
        }
        return key.withLock { known in
            if known == nil { known = fresh }
            return known ?? fresh
        }
    }
}
