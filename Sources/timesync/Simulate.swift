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

    @Option(help: ArgumentHelp(SimulateOptions.Help.scenario))
    var scenario: String

    @Option(parsing: .unconditional, help: ArgumentHelp(SimulateOptions.Help.seed))
    var seed: UInt64 = SimulateOptions.defaults.seed

    @Option(parsing: .unconditional, help: ArgumentHelp(SimulateOptions.Help.alpha))
    var alpha: Double = SimulateOptions.defaults.alpha

    @Option(parsing: .unconditional, help: ArgumentHelp(SimulateOptions.Help.serverSlew))
    var serverSlew: Double = SimulateOptions.defaults.serverSlew

    @Option(parsing: .unconditional, help: ArgumentHelp(SimulateOptions.Help.serverSlewLimit))
    var serverSlewLimit: Double = SimulateOptions.defaults.serverSlewLimit

    @Flag(help: ArgumentHelp(SimulateOptions.Help.json))
    var json = false

    @Option(parsing: .unconditional, help: ArgumentHelp(SimulateOptions.Help.series))
    var series: Int = SimulateOptions.defaults.series

    @Option(help: ArgumentHelp(SimulateOptions.Help.writeStreams, valueName: "file"))
    var writeStreams: String?

    @Option(help: ArgumentHelp(SimulateOptions.Help.javascript, valueName: "script"))
    var javascript: String?

    var options: SimulateOptions {
        SimulateOptions(
            scenario: scenario, seed: seed, alpha: alpha, serverSlew: serverSlew, serverSlewLimit: serverSlewLimit, json: json, series: series,
            writeStreams: writeStreams, javascript: javascript)
    }

    func validate() throws {
        if let problem = options.problem { throw ValidationError(problem) }
    }

    func run() throws {
        print(try runSimulation(options))
    }
}
#endif
