import TimeSync
import TimeSyncTesting

/// A period during which a server's answers are off by a fixed amount while its clock is not: a
/// misbehaving backend, a proxy, a spoofer that holds the path for a moment.
package struct ClockGlitch: Sendable, Hashable, Codable {
    /// Seconds into the run.
    package var at: Double
    /// How long, in seconds.
    package var duration: Double
    /// How far its answers are off meanwhile, in seconds.
    package var by: Double

    /// Creates a glitch.
    package init(at: Double, duration: Double, by: Double) {
        self.at = at
        self.duration = duration
        self.by = by
    }
}
