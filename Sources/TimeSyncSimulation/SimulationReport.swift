import TimeSync
import TimeSyncTesting

/// What ``Simulation/run(_:seed:strategies:configuration:seriesPoints:)`` measured.
public struct SimulationReport: Sendable, Hashable, Codable {
    /// The scenario's name.
    public var scenario: String
    /// The seed.
    public var seed: UInt64
    /// How many samples reached the client.
    public var samples: Int
    /// How many readings were taken per strategy.
    public var readings: Int
    /// One entry per strategy, then the wall-clock baseline.
    public var strategies: [StrategyResult]

    /// The result of a strategy by name.
    public func result(_ name: String) -> StrategyResult? { strategies.first { $0.name == name } }
}
