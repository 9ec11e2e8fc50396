import TimeSync
import TimeSyncTesting

/// A period during which a clock runs at a different rate: a time daemon slewing it.
public struct ClockSlew: Sendable, Hashable, Codable {
    /// Seconds into the run.
    public var at: Double
    /// How long, in seconds.
    public var duration: Double
    /// The extra rate, dimensionless (500e-6: 500 ppm fast).
    public var rate: Double

    /// Creates a slew.
    public init(at: Double, duration: Double, rate: Double) {
        self.at = at
        self.duration = duration
        self.rate = rate
    }
}
