import Foundation
import TimeSync

/// A calibration store in memory, for tests: counts its writes and can be made to fail.
public final class MemoryCalibrationStore: CalibrationStore {
    private let state: Locked<(data: Data?, saves: Int, failing: Bool)>

    /// Creates a store holding `data` (nothing by default).
    public init(_ data: Data? = nil) {
        state = Locked((data, 0, false))
    }

    /// Successful saves so far.
    public var saves: Int { state.withLock { $0.saves } }
    /// What the store holds now.
    public var data: Data? { state.withLock { $0.data } }
    /// While set, saves throw `CocoaError(.fileWriteNoPermission)` and change nothing.
    public var failing: Bool {
        get { state.withLock { $0.failing } }
        set { state.withLock { $0.failing = newValue } }
    }

    public func load() throws -> Data? { state.withLock { $0.data } }

    public func save(_ data: Data) throws {
        try state.withLock {
            if $0.failing { throw CocoaError(.fileWriteNoPermission) }
            $0.data = data
            $0.saves += 1
        }
    }

    public func remove() throws { state.withLock { $0.data = nil } }
}
