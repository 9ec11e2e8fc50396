import TimeSync
import TimeSyncTesting

/// A simulated time server.
public struct SimulatedServer: Sendable, Hashable, Codable {
    /// The server's name (the sample's source).
    public var name: String
    /// How far the server's clock is from the truth, in seconds (a falseticker lies by seconds).
    public var clockError: Double
    /// Steps of the server's clock: at `at` seconds into the run its clock jumps by `by` seconds.
    public var steps: [ClockStep]
    /// Slews of the server's clock: a time daemon correcting it runs it fast or slow for a while.
    public var slews: [ClockSlew]
    /// The server's processing time between receive and transmit, in seconds.
    public var processing: Double

    /// Creates a server.
    public init(name: String, clockError: Double = 0, steps: [ClockStep] = [], slews: [ClockSlew] = [], processing: Double = 50e-6) {
        self.name = name
        self.clockError = clockError
        self.steps = steps
        self.slews = slews
        self.processing = processing
    }

    /// The server clock's error at `t` seconds into the run.
    func error(at t: Double) -> Double {
        clockError + steps.filter { $0.at <= t }.map(\.by).reduce(0, +)
            + slews.map { $0.rate * min(max(t - $0.at, 0), $0.duration) }.reduce(0, +)
    }
}
