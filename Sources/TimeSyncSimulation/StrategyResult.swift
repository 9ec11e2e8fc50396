import TimeSync
import TimeSyncTesting

/// One strategy's figures over a run.
package struct StrategyResult: Sendable, Hashable, Codable {
    /// The strategy's name.
    package var name: String
    /// Median of |estimate − truth| over the synchronized readings, in seconds.
    package var medianError: Double
    /// 99th percentile of |estimate − truth|, in seconds.
    package var p99Error: Double
    /// Largest |estimate − truth|, in seconds.
    package var maxError: Double
    /// Median half-width of the bounds over the synchronized readings, in seconds: what the error
    /// bound costs.
    package var medianHalfWidth: Double
    /// Share of synchronized readings whose bounds contain the truth.
    package var coverage: Double
    /// How many readings were synchronized (and counted).
    package var readings: Int
    /// How many readings had no calibration (before the first sample, or no majority).
    package var unsynchronizedReadings: Int
    /// Signed errors over the run, when asked for.
    package var series: [SeriesPoint]?
}
