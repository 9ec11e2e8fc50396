import Foundation

/// Where a ``ServerClock`` keeps its calibration between launches.
///
/// Stores hold opaque bytes, so any key-value store fits. An app can plug `UserDefaults`:
/// ```swift
/// struct DefaultsStore: CalibrationStore {
///     let key = "TimeSync.calibration"
///     func load() throws -> Data? { UserDefaults.standard.data(forKey: key) }
///     func save(_ data: Data) throws { UserDefaults.standard.set(data, forKey: key) }
///     func remove() throws { UserDefaults.standard.removeObject(forKey: key) }
/// }
/// ```
public protocol CalibrationStore: Sendable {
    /// Checks, when a clock opens the store, that it may be read and written; a store that throws
    /// is neither (the clock reports `ServerClockEvent.storeIgnored(reason:)` with the error). The
    /// default accepts.
    func validate() throws
    /// The stored bytes, or `nil` when nothing is stored.
    func load() throws -> Data?
    /// Replaces the stored bytes.
    func save(_ data: Data) throws
    /// Removes what is stored.
    func remove() throws
}

extension CalibrationStore {
    public func validate() throws {}
}
