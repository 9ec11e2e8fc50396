import TimeSync
import TimeSyncTesting

/// One strategy's figures over a run.
public struct StrategyResult: Sendable, Hashable, Codable {
    /// The strategy's name.
    public var name: String
    /// Median of |estimate − truth| over the synchronized readings, in seconds.
    public var medianError: Double
    /// 99th percentile of |estimate − truth|, in seconds.
    public var p99Error: Double
    /// Largest |estimate − truth|, in seconds.
    public var maxError: Double
    /// Median half-width of the bounds over the synchronized readings, in seconds: what the error
    /// bound costs.
    public var medianHalfWidth: Double
    /// Share of synchronized readings whose bounds contain the truth.
    public var coverage: Double
    /// How many readings were synchronized (and counted).
    public var readings: Int
    /// How many readings had no calibration (before the first sample, or no majority).
    public var unsynchronizedReadings: Int
    /// Signed errors over the run, when asked for.
    public var series: [SeriesPoint]?
}
