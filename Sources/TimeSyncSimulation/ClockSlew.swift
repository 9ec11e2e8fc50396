import TimeSync
import TimeSyncTesting

/// A period during which a clock runs at a different rate: a time daemon slewing it.
package struct ClockSlew: Sendable, Hashable, Codable {
    /// Seconds into the run.
    package var at: Double
    /// How long, in seconds.
    package var duration: Double
    /// The extra rate, dimensionless (500e-6: 500 ppm fast).
    package var rate: Double

    /// Creates a slew.
    package init(at: Double, duration: Double, rate: Double) {
        self.at = at
        self.duration = duration
        self.rate = rate
    }
}
