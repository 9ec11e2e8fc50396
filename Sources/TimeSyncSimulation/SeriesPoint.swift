import TimeSync
import TimeSyncTesting

/// One point of an error series.
package struct SeriesPoint: Sendable, Hashable, Codable {
    /// Seconds into the run.
    package var time: Double
    /// Estimate − truth, in seconds.
    package var error: Double
}
