import TimeSync
import TimeSyncTesting

/// A step of a clock at a moment of the run.
public struct ClockStep: Sendable, Hashable, Codable {
    /// Seconds into the run.
    public var at: Double
    /// The jump, in seconds.
    public var by: Double

    /// Creates a step.
    public init(at: Double, by: Double) {
        self.at = at
        self.by = by
    }
}
