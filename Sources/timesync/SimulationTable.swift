import Foundation
import TimeSync
import TimeSyncSimulation

/// The settings of `timesync simulate`, checked the same way whichever way the command was built.
struct SimulateOptions: Sendable {
    /// The scenario to run, or `all`.
    var scenario: String
    /// The random seed.
    var seed: UInt64 = 7
    /// The EMA strategy's weight for the newest sample, in (0, 1].
    var alpha: Double = EMAEstimator.defaultAlpha
    /// The servers' largest slew rate the bounds allow for, in ppm.
    var serverSlew: Double = 500
    /// The largest correction a server slews, in ms.
    var serverSlewLimit: Double = 128
    /// Print JSON.
    var json = false
    /// With `json`: about this many (time, error) points per strategy.
    var series: Int = 0
    /// Write each scenario's sample stream, with the default estimator's outcome after each sample,
    /// to this JSON file instead of running the strategies.
    var writeStreams: String?
    /// A Node script that reads such streams on its standard input and writes its own outcomes: its
    /// strategy joins the table as `javascript`.
    var javascript: String?

    /// What is wrong with the settings, as a usage error says it; `nil` when they are good.
    var problem: String? {
        guard scenario == "all" || SimulationScenario.named(scenario) != nil else {
            return "unknown scenario '\(scenario)'; choose one of: \(SimulationScenario.builtIn.map(\.name).joined(separator: ", ")), all"
        }
        guard alpha > 0, alpha <= 1 else { return "--alpha \(alpha): give a weight more than 0 and at most 1" }
        guard serverSlew.isFinite, (0...10_000).contains(serverSlew) else { return "--server-slew \(serverSlew): give 0 to 10000 ppm" }
        guard serverSlewLimit.isFinite, (0...1000).contains(serverSlewLimit) else {
            return "--server-slew-limit \(serverSlewLimit): give 0 to 1000 ms"
        }
        guard (0...100_000).contains(series) else { return "--series \(series): give 0 to 100000 points" }
        if writeStreams != nil && javascript != nil { return "--write-streams and --javascript: give one of them" }
        if writeStreams?.isEmpty == true { return "--write-streams: give the path of the JSON file to write" }
        if let javascript, !FileManager.default.isReadableFile(atPath: javascript) {
            return "--javascript \(javascript): no readable script there; give the path of a Node script (web/tools/estimate-streams.mjs)"
        }
        return nil
    }
}

extension SimulateOptions {
    /// The flags' defaults (the scenario has none: it must be given).
    static let defaults = SimulateOptions(scenario: "all")

    /// Each flag's help, the same in both builds of the command.
    enum Help {
        static let scenario = "The scenario to run, or 'all'."
        static let seed = "The random seed."
        static let alpha = "The EMA strategy's weight for the newest sample, in (0, 1]."
        static let serverSlew = "The servers' largest slew rate the bounds allow for, in ppm (0: a steady server)."
        static let serverSlewLimit = "The largest correction a server slews, in ms: the most the slew allowance adds to a bound."
        static let json = "Print JSON."
        static let series = "With --json: include about this many (time, error) points per strategy, for charts."
        static let writeStreams = "Write each scenario's sample stream and the default estimator's outcomes to this JSON file; run nothing."
        static let javascript = "Also score the estimator of this Node script (web/tools/estimate-streams.mjs) on the same streams, as 'javascript'."
    }
}

/// Runs every strategy on the scenario's seeded sample stream.
/// - Returns: The tables (a legend under each), or the JSON report(s).
func runSimulation(_ options: SimulateOptions) throws -> String {
    let scenarios = options.scenario == "all" ? SimulationScenario.builtIn : [SimulationScenario.named(options.scenario)!]
    let strategies: [Strategy] = [.intersection, .latest, .lowestDelay, .ema(alpha: options.alpha), .kronos, .timesyncJS]
    let configuration = EstimatorConfiguration(
        serverSlew: options.serverSlew * 1e-6, serverSlewLimit: .nanoseconds(Int64((options.serverSlewLimit * 1e6).rounded())))
    if let path = options.writeStreams {
        let streams = scenarios.map { EstimatorStream($0, seed: options.seed, configuration: configuration) }
        try jsonData(streams).write(to: URL(fileURLWithPath: path))
        return "wrote \(streams.map(\.samples.count).reduce(0, +)) samples of \(streams.count) scenario(s) to \(path)"
    }
    let reports = try scenarios.map { scenario in
        var all = strategies
        if let script = options.javascript {
            let stream = EstimatorStream(scenario, seed: options.seed, configuration: configuration)
            all.insert(.replayed(name: "javascript", outcomes: try runNodeEstimator(script, on: stream, slew: configuration.slewAllowance)), at: 1)
        }
        return Simulation.run(scenario, seed: options.seed, strategies: all, configuration: configuration, seriesPoints: options.json ? options.series : 0)
    }
    if options.json {
        return try options.scenario == "all" ? jsonString(reports) : jsonString(reports[0])
    }
    return zip(scenarios, reports).map { simulationTable($1, scenario: $0) }.joined(separator: "\n")
}

/// What went wrong running another implementation's estimator through Node.
struct NodeEstimatorError: Error, CustomStringConvertible {
    var description: String
}

/// Runs `node SCRIPT` with the stream on its standard input and reads one outcome row per sample
/// from its standard output.
func runNodeEstimator(_ script: String, on stream: EstimatorStream, slew: SlewAllowance) throws -> [EstimatorOutcome] {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["node", script]
    let input = Pipe()
    let output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    do {
        try process.run()
    } catch {
        throw NodeEstimatorError(description: "could not start node (\(error)); install Node.js 20 or later, or run without --javascript")
    }
    let request = try jsonData(stream)
    // Written from another thread: the script may answer before it has read everything.
    let writer = Thread {
        input.fileHandleForWriting.write(request)
        try? input.fileHandleForWriting.close()
    }
    writer.start()
    // One deadline: a script that has not answered in ten minutes is ended.
    let deadline = DispatchWorkItem { if process.isRunning { process.terminate() } }
    DispatchQueue.global().asyncAfter(deadline: .now() + 600, execute: deadline)
    let answer = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    deadline.cancel()
    guard process.terminationReason == .exit else {
        throw NodeEstimatorError(description: "node \(script) did not answer within 600 s and was ended; run it by hand on the output of --write-streams to see why")
    }
    guard process.terminationStatus == 0 else {
        throw NodeEstimatorError(description: "node \(script) exited with status \(process.terminationStatus); run it by hand on the output of --write-streams to see why")
    }
    let expected = stream.outcomes.count
    guard let rows = try? JSONDecoder().decode([[String]].self, from: answer), rows.count == expected else {
        throw NodeEstimatorError(description: "node \(script) did not answer one outcome row per measurement (\(expected)) as a JSON array of string arrays")
    }
    return try EstimatorStream.decode(rows, slew: slew)
}

/// One scenario's results as a table, with a legend.
func simulationTable(_ report: SimulationReport, scenario: SimulationScenario) -> String {
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
                + "fewer than 1 % of its \(result.readings) readings were off by more than \(Duration.readable(seconds: result.p99Error)); "
                + "the max is the single worst of them.")
    }
    return lines.joined(separator: "\n") + "\n"
}

/// What each column of `simulate`'s table means.
private let legend = [
    "  median / p99 / max error: |the strategy's reading − the true server time| over its vouched readings (50th and 99th percentile, worst)",
    "  median ±: the median half-width of the error bound it reported (what its honesty costs)",
    "  coverage: the share of its vouched readings whose bound contained the true time (1.0000: every bound held)",
    "  not vouched: readings it gave no time for (before its first sample, or without a majority); not in the errors",
]

/// Encodes a value as pretty JSON with sorted keys.
func jsonString(_ value: some Encodable) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
    return String(decoding: try encoder.encode(value), as: UTF8.self)
}

/// JSON for a file another program reads: compact, keys sorted.
func jsonData(_ value: some Encodable) throws -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return try encoder.encode(value)
}
