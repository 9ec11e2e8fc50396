import TimeSync
import TimeSyncTesting

/// One point of an error series.
public struct SeriesPoint: Sendable, Hashable, Codable {
    /// Seconds into the run.
    public var time: Double
    /// Estimate − truth, in seconds.
    public var error: Double
}
