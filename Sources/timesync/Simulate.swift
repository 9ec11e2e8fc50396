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

    func validate() throws {
        guard scenario == "all" || SimulationScenario.named(scenario) != nil else {
            throw ValidationError(
                "unknown scenario '\(scenario)'; choose one of: \(SimulationScenario.builtIn.map(\.name).joined(separator: ", ")), all")
        }
        guard alpha > 0, alpha <= 1 else { throw ValidationError("--alpha \(alpha): give a weight more than 0 and at most 1") }
        guard serverSlew.isFinite, (0...10_000).contains(serverSlew) else { throw ValidationError("--server-slew \(serverSlew): give 0 to 10000 ppm") }
        guard serverSlewLimit.isFinite, (0...1000).contains(serverSlewLimit) else {
            throw ValidationError("--server-slew-limit \(serverSlewLimit): give 0 to 1000 ms")
        }
        guard (0...100_000).contains(series) else { throw ValidationError("--series \(series): give 0 to 100000 points") }
    }

    func run() throws {
        let scenarios = scenario == "all" ? SimulationScenario.builtIn : [SimulationScenario.named(scenario)!]
        let strategies: [Strategy] = [.intersection, .latest, .lowestDelay, .ema(alpha: alpha), .kronos, .timesyncJS]
        let configuration = EstimatorConfiguration(
            serverSlew: serverSlew * 1e-6, serverSlewLimit: .nanoseconds(Int64((serverSlewLimit * 1e6).rounded())))
        let reports = scenarios.map {
            Simulation.run($0, seed: seed, strategies: strategies, configuration: configuration, seriesPoints: json ? series : 0)
        }
        if json {
            print(try scenario == "all" ? jsonString(reports) : jsonString(reports[0]))
            return
        }
        for (scenario, report) in zip(scenarios, reports) {
            print(Self.table(report, scenario: scenario))
        }
    }

    static func table(_ report: SimulationReport, scenario: SimulationScenario) -> String {
        var lines = ["scenario \(report.scenario), seed \(report.seed): \(report.samples) samples, \(report.readings) readings"]
        lines.append("  " + scenario.provenance.replacingOccurrences(of: "\n", with: " "))
        lines.append("")
        lines.append("  strategy             median error    p99 error    max error   median ±   coverage   not vouched")
        for result in report.strategies {
            lines.append(
                "  " + result.name.padding(toLength: 18, withPad: " ", startingAt: 0)
                    + Duration.readable(seconds: result.medianError).leftPadded(15) + Duration.readable(seconds: result.p99Error).leftPadded(13)
                    + Duration.readable(seconds: result.maxError).leftPadded(13) + Duration.readable(seconds: result.medianHalfWidth).leftPadded(11)
                    + String(format: "%11.4f", result.coverage)
                    + String(result.unsynchronizedReadings).leftPadded(14))
        }
        lines.append("")
        lines += legend
        // A worst reading far above the 99th percentile is a handful of readings, not the typical one.
        for result in report.strategies where result.p99Error > 0 && result.maxError > 10 * result.p99Error {
            lines.append(
                "  \(result.name): max \(Duration.readable(seconds: result.maxError)) is \(Int((result.maxError / result.p99Error).rounded()))× its p99: "
                    + "fewer than 1 % of its \(result.readings) readings were off by more than \(Duration.readable(seconds: result.p99Error)), "
                    + "the worst by the max (a spike or step the strategy followed before later samples outweighed it).")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}


/// What each column of `simulate`'s table means.
private let legend = [
    "  median / p99 / max error: |the strategy's reading − the true server time| over its vouched readings (50th and 99th percentile, worst)",
    "  median ±: the median half-width of the error bound it reported (what its honesty costs)",
    "  coverage: the share of its vouched readings whose bound contained the true time (1.0000: every bound held)",
    "  not vouched: readings it gave no time for (before its first sample, or without a majority); not in the errors",
]

extension String {
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
#endif
