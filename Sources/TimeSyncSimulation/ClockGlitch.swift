import TimeSync
import TimeSyncTesting

/// A period during which a server's answers are off by a fixed amount while its clock is not: a
/// misbehaving backend, a proxy, a spoofer that holds the path for a moment.
public struct ClockGlitch: Sendable, Hashable, Codable {
    /// Seconds into the run.
    public var at: Double
    /// How long, in seconds.
    public var duration: Double
    /// How far its answers are off meanwhile, in seconds.
    public var by: Double

    /// Creates a glitch.
    public init(at: Double, duration: Double, by: Double) {
        self.at = at
        self.duration = duration
        self.by = by
    }
}
