import TimeSync
import TimeSyncTesting

/// A step of a clock at a moment of the run.
package struct ClockStep: Sendable, Hashable, Codable {
    /// Seconds into the run.
    package var at: Double
    /// The jump, in seconds.
    package var by: Double

    /// Creates a step.
    package init(at: Double, by: Double) {
        self.at = at
        self.by = by
    }
}
