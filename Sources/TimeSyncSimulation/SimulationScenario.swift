import TimeSync
import TimeSyncTesting

/// A simulated world: network path, servers, the device's oscillator and user, and what to measure.
///
/// Every parameter of the built-in scenarios is written down with where it comes from
/// (``provenance``); none was tuned to favour a strategy.
package struct SimulationScenario: Sendable, Hashable, Codable {
    /// The scenario's name (`lan`, `wifi`, …).
    package var name: String
    /// What the scenario models, and where its numbers come from.
    package var provenance: String
    /// The run's length in seconds.
    package var duration: Double
    /// Seconds between two readings of each strategy's clock.
    package var readingInterval: Double
    /// Seconds between two polls of each server.
    package var pollInterval: Double
    /// The request direction's delay.
    package var forward: DelayModel
    /// The reply direction's delay.
    package var backward: DelayModel
    /// The probability that a packet (either direction) is lost.
    package var loss: Double
    /// The local monotonic clock's frequency error, dimensionless (+50e-6: 50 ppm fast).
    package var localDrift: Double
    /// The servers polled.
    package var servers: [SimulatedServer]
    /// Periods (seconds into the run) without any sample: the device is offline.
    package var offline: [ClosedRange<Double>]
    /// Jumps of the device's wall clock (the user changing the time).
    package var wallClockJumps: [ClockStep]

    /// Creates a scenario.
    package init(
        name: String, provenance: String, duration: Double, readingInterval: Double = 1, pollInterval: Double,
        forward: DelayModel, backward: DelayModel, loss: Double, localDrift: Double,
        servers: [SimulatedServer], offline: [ClosedRange<Double>] = [], wallClockJumps: [ClockStep] = []
    ) {
        self.name = name
        self.provenance = provenance
        self.duration = duration
        self.readingInterval = readingInterval
        self.pollInterval = pollInterval
        self.forward = forward
        self.backward = backward
        self.loss = loss
        self.localDrift = localDrift
        self.servers = servers
        self.offline = offline
        self.wallClockJumps = wallClockJumps
    }
}
