#if CLI
import ArgumentParser
import Foundation
import TimeSync
import TimeSyncSimulation

/// `timesync simulate`: every strategy on one seeded sample stream, judged against ground truth.
struct Simulate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run every strategy on a simulated network with ground truth.",
        discussion: "Scenarios: \(SimulationScenario.builtIn.map(\.name).joined(separator: ", ")), or 'all'.")

    @Option(help: "The scenario to run, or 'all'.")
    var scenario: String

    @Option(help: "The random seed.")
    var seed: UInt64 = 7

    @Option(parsing: .unconditional, help: "The EMA strategy's weight for the newest sample, in (0, 1].")
    var alpha: Double = EMAEstimator.defaultAlpha

    @Option(parsing: .unconditional, help: "The servers' largest slew rate the bounds allow for, in ppm (0: a steady server).")
    var serverSlew: Double = 500

    @Option(parsing: .unconditional, help: "The largest correction a server slews, in ms: the most the slew allowance adds to a bound.")
    var serverSlewLimit: Double = 128

    @Flag(help: "Print JSON.")
    var json = false

    @Option(parsing: .unconditional, help: "With --json: include about this many (time, error) points per strategy, for charts.")
    var series: Int = 0

    var options: SimulateOptions {
        SimulateOptions(
            scenario: scenario, seed: seed, alpha: alpha, serverSlew: serverSlew, serverSlewLimit: serverSlewLimit, json: json, series: series)
    }

    func validate() throws {
        if let problem = options.problem { throw ValidationError(problem) }
    }

    func run() throws {
        print(try runSimulation(options))
    }
}
#endif
