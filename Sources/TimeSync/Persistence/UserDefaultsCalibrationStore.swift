import Foundation

/// A ``CalibrationStore`` in `UserDefaults`: the standard defaults, or an app group's suite shared
/// with extensions and widgets (`UserDefaultsCalibrationStore(suiteName: "group.com.example.app")`).
///
/// `UserDefaults` is documented as thread-safe; the store adds nothing to it.
public struct UserDefaultsCalibrationStore: CalibrationStore, @unchecked Sendable {
    /// The defaults the calibration lives in.
    public let defaults: UserDefaults
    /// The key under which it is stored.
    public let key: String

    /// A store in the standard defaults, or in the suite `suiteName` (an app group); `nil` when the
    /// suite cannot be opened.
    public init?(suiteName: String? = nil, key: String = "TimeSync.calibration") {
        guard let defaults = suiteName.map({ UserDefaults(suiteName: $0) }) ?? UserDefaults.standard else { return nil }
        self.defaults = defaults
        self.key = key
    }

    /// The stored bytes; more than ``PersistedCalibration/maximumSize`` are cut to one byte past it,
    /// enough for the restore to reject them.
    public func load() throws -> Data? {
        defaults.data(forKey: key).map { $0.count > PersistedCalibration.maximumSize ? $0.prefix(PersistedCalibration.maximumSize + 1) : $0 }
    }

    public func save(_ data: Data) throws { defaults.set(data, forKey: key) }

    public func remove() throws { defaults.removeObject(forKey: key) }
}
