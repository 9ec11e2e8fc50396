import Foundation

/// Why a calibration key could not be had.
public struct CalibrationKeyError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, for a log line.
    public var reason: String

    /// Creates an error.
    public init(_ reason: String) {
        self.reason = reason
    }

    public var description: String { "calibration key: \(reason)" }
}
