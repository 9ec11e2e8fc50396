import Foundation

/// A ``CalibrationStore`` in `UserDefaults`: the standard defaults, or an app group's suite shared
/// with extensions and widgets (`UserDefaultsCalibrationStore(suiteName: "group.com.example.app")`).
///
/// A saved calibration survives relaunches and a killed process (on Apple platforms `cfprefsd` keeps
/// it; elsewhere every save is written to disk before it returns), but not a reboot: like every store,
/// it is ignored in another boot session.
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

    /// The stored bytes; more than `PersistedCalibration.maximumSize` are cut to one byte past it,
    /// enough for the restore to reject them.
    public func load() throws -> Data? {
        defaults.data(forKey: key).map { $0.count > PersistedCalibration.maximumSize ? $0.prefix(PersistedCalibration.maximumSize + 1) : $0 }
    }

    /// Replaces the stored bytes; where `UserDefaults` has no daemon writing it (Linux), they are on
    /// disk when this returns.
    /// - Throws: `CocoaError(.fileWriteUnknown)` when they could not be written to disk.
    public func save(_ data: Data) throws {
        defaults.set(data, forKey: key)
        try writeThrough()
    }

    /// Removes the stored bytes; where `UserDefaults` has no daemon writing it (Linux), from disk too.
    /// - Throws: `CocoaError(.fileWriteUnknown)` when the removal could not be written to disk.
    public func remove() throws {
        defaults.removeObject(forKey: key)
        try writeThrough()
    }

    /// Without `cfprefsd` (swift-corelibs-foundation), `UserDefaults` writes its file only when
    /// synchronized or at a normal exit: a process killed after a save would lose it.
    private func writeThrough() throws {
        #if !canImport(Darwin)
        guard defaults.synchronize() else { throw CocoaError(.fileWriteUnknown) }
        #endif
    }
}
