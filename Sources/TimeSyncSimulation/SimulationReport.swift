import TimeSync
import TimeSyncTesting

/// What ``Simulation/run(_:seed:strategies:configuration:seriesPoints:)`` measured.
package struct SimulationReport: Sendable, Hashable, Codable {
    /// The scenario's name.
    package var scenario: String
    /// The seed.
    package var seed: UInt64
    /// How many samples reached the client.
    package var samples: Int
    /// How many readings were taken per strategy.
    package var readings: Int
    /// One entry per strategy, then the wall-clock baseline.
    package var strategies: [StrategyResult]

    /// The result of a strategy by name.
    package func result(_ name: String) -> StrategyResult? { strategies.first { $0.name == name } }
}
