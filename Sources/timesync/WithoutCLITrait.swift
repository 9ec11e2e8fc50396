#if !CLI
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import TimeSyncSimulation

/// `timesync` built without the package's `CLI` trait (what `swift run --scratch-path .build-notrait timesync demo` builds in a
/// fresh clone): `demo` and `simulate` on the core and the simulator, `query` and `watch` on NTP over
/// the system's sockets and HTTP over URLSession, with their flags read here instead of by
/// swift-argument-parser (which only the trait brings). The commands that need the servers, NTS or
/// Roughtime say how to build them.
@main
enum TimeSyncWithoutCLITrait {
    static func main() async {
        var arguments = Array(CommandLine.arguments.dropFirst())
        guard let command = arguments.first else {
            fail(usage: "give a command", help: overview)
        }
        arguments.removeFirst()
        switch command {
        case "demo":
            var options = DemoOptions()
            var flags = Flags(command: "demo", arguments)
            if flags.wantsHelp { print(demoHelp); return }
            options.serverOffset = flags.double("--server-offset") ?? options.serverOffset
            options.saleIn = flags.int("--sale-in") ?? options.saleIn
            options.seed = flags.unsigned("--seed") ?? options.seed
            flags.finish()
            if let problem = options.problem { fail(usage: problem, help: demoHelp) }
            do {
                try await runDemo(options)
            } catch let failure as DemoFailure {
                fail(failure.message, help: failure.help)
            } catch {
                fail("\(error)", help: "Run the demo again.")
            }
        case "simulate":
            var flags = Flags(command: "simulate", arguments)
            if flags.wantsHelp { print(simulateHelp); return }
            guard let scenario = flags.string("--scenario") else { fail(usage: "simulate needs --scenario NAME (or all)", help: simulateHelp) }
            var options = SimulateOptions(scenario: scenario)
            options.seed = flags.unsigned("--seed") ?? options.seed
            options.alpha = flags.double("--alpha") ?? options.alpha
            options.serverSlew = flags.double("--server-slew") ?? options.serverSlew
            options.serverSlewLimit = flags.double("--server-slew-limit") ?? options.serverSlewLimit
            options.series = flags.int("--series") ?? options.series
            options.json = flags.flag("--json")
            options.writeStreams = flags.string("--write-streams")
            options.javascript = flags.string("--javascript")
            flags.finish()
            if let problem = options.problem { fail(usage: problem, help: simulateHelp) }
            do {
                print(try runSimulation(options))
            } catch {
                fail("\(error)", help: "Run it again without --json.")
            }
        case "query":
            var flags = Flags(command: "query", arguments)
            if flags.wantsHelp { print(queryHelp); return }
            var options = QueryOptions(url: "")
            options.samples = flags.int("--samples") ?? options.samples
            options.timeout = flags.double("--timeout") ?? options.timeout
            options.allowLocalAddresses = flags.flag("--allow-local-addresses")
            options.caFile = flags.strings("--ca-file")
            options.dateOnly = flags.flag("--date-only")
            options.json = flags.flag("--json")
            let urls = flags.positionals()
            flags.finish()
            guard urls.count == 1, let url = urls.first else {
                fail(usage: urls.isEmpty ? "query needs a server URL" : "query takes one server URL, not \(urls.count)", help: queryHelp)
            }
            options.url = url
            if let problem = options.problem {
                report(.invalidArgument(problem, help: "Run 'timesync query --help' for the flags and what they take."), json: options.json)
            }
            do {
                print(try await runQuery(options))
            } catch let failure as CommandFailure {
                report(failure, json: options.json)
            } catch {
                report(CommandFailure.from(error), json: options.json)
            }
        case "watch":
            var flags = Flags(command: "watch", arguments)
            if flags.wantsHelp { print(watchHelp); return }
            var options = WatchOptions(sources: [])
            options.caFile = flags.strings("--ca-file")
            options.duration = flags.double("--duration")
            options.json = flags.flag("--json")
            options.store = flags.string("--store")
            options.targetError = flags.double("--target-error") ?? options.targetError
            options.timeout = flags.double("--timeout") ?? options.timeout
            options.interval = flags.double("--interval")
            options.tolerance = flags.double("--tolerance") ?? options.tolerance
            options.deadline = flags.string("--deadline")
            options.sources = flags.positionals()
            flags.finish()
            if let problem = options.problem {
                report(.invalidArgument(problem, help: "Run 'timesync watch --help' for the flags and what they take."), json: options.json)
            }
            do {
                if try await !runWatch(options) { exit(1) }
            } catch let failure as CommandFailure {
                report(failure, json: options.json)
            } catch {
                report(CommandFailure.from(error), json: options.json)
            }
        case "-h", "--help", "help":
            print(overview)
        case "serve", "roughtime":
            fail(
                usage: "'timesync \(command)' needs the package's CLI trait (its servers, NTS, AsyncHTTPClient and argument parsing); this build has none",
                help: "Build and run it with the trait: swift run --traits CLI timesync \(command) --help")
        default:
            fail(usage: "unknown command '\(command)'", help: overview)
        }
    }

    static let overview = """
        USAGE: timesync <command> [flags]

        Built without the package's CLI trait: the commands that need no server stack.
          demo        Watch a calibrated clock and a countdown stay right while the device clock is changed.
          simulate    Run every strategy on a simulated network with ground truth.
          query       Measure a server's clock: ntp:// or http(s):// (NTP on the system's sockets, HTTP on URLSession).
          watch       Keep a clock synchronized to ntp:// and http(s):// sources; print each update.
        serve, roughtime, and nts:// or roughtime:// sources need the trait: swift run --traits CLI timesync <command> --help
        """

    static let demoHelp = """
        USAGE: timesync demo [--server-offset <seconds>] [--sale-in <seconds>] [--seed <seed>]

          --server-offset   \(DemoOptions.Help.serverOffset) Default \(DemoOptions().serverOffset).
          --sale-in         \(DemoOptions.Help.saleIn) Default \(DemoOptions().saleIn).
          --seed            \(DemoOptions.Help.seed) Default \(DemoOptions().seed).
        """

    static let simulateHelp = """
        USAGE: timesync simulate --scenario <scenario> [--seed <seed>] [--alpha <alpha>] [--server-slew <ppm>] [--server-slew-limit <ms>] [--json] [--series <points>] [--write-streams <file>] [--javascript <script>]

          --scenario            \(SimulateOptions.Help.scenario) One of: \(SimulationScenario.builtIn.map(\.name).joined(separator: ", ")).
          --seed                \(SimulateOptions.Help.seed) Default \(SimulateOptions.defaults.seed).
          --alpha               \(SimulateOptions.Help.alpha) Default \(SimulateOptions.defaults.alpha).
          --server-slew         \(SimulateOptions.Help.serverSlew) Default \(SimulateOptions.defaults.serverSlew).
          --server-slew-limit   \(SimulateOptions.Help.serverSlewLimit) Default \(SimulateOptions.defaults.serverSlewLimit).
          --json                \(SimulateOptions.Help.json)
          --series              \(SimulateOptions.Help.series)
          --write-streams       \(SimulateOptions.Help.writeStreams)
          --javascript          \(SimulateOptions.Help.javascript)
        """

    static let queryHelp = """
        USAGE: timesync query <url> [--samples <samples>] [--timeout <seconds>] [--allow-local-addresses] [--date-only] [--json]

          <url>                     \(QueryOptions.Help.url) (nts:// and roughtime:// need the CLI trait.)
          --samples                 \(QueryOptions.Help.samples) Default \(QueryOptions.defaults.samples).
          --timeout                 \(QueryOptions.Help.timeout) Default \(QueryOptions.defaults.timeout).
          --allow-local-addresses   \(QueryOptions.Help.allowLocalAddresses)
          --date-only               \(QueryOptions.Help.dateOnly)
          --json                    \(QueryOptions.Help.json)

        Prints one line, each value named: the server's time; "offset" (server − this machine's wall
        clock, positive when the server is ahead) "±" its error bound; "server"; for NTP the "address"
        that answered, the "stratum" and the "leap" indicator; for HTTP the "method" (header or date)
        and the "requests" sent; the "samples" used and the lowest "delay".
        """

    static let watchHelp = """
        USAGE: timesync watch <sources> ... [--duration <seconds>] [--json] [--store <file>] [--target-error <ms>] [--timeout <seconds>] [--interval <seconds>]

          <sources>        \(WatchOptions.Help.sources) (nts:// and roughtime:// need the CLI trait.)
          --duration       \(WatchOptions.Help.duration)
          --json           \(WatchOptions.Help.json)
          --store          \(WatchOptions.Help.store)
          --target-error   \(WatchOptions.Help.targetError) Default \(WatchOptions.defaults.targetError).
          --timeout        \(WatchOptions.Help.timeout) Default \(WatchOptions.defaults.timeout).
          --interval       \(WatchOptions.Help.interval)
          --tolerance      \(WatchOptions.Help.tolerance) Default \(WatchOptions.defaults.tolerance).
          --deadline       \(WatchOptions.Help.deadline)
        """

    /// Reports a failure as the command built with the trait does (JSON on stdout under `--json`)
    /// and exits with its status.
    static func report(_ failure: CommandFailure, json: Bool) -> Never {
        failure.report(json: json)
        exit(failure.status)
    }

    /// A usage error: its message and help on stderr, exit status 64.
    static func fail(usage message: String, help: String) -> Never {
        fail(message, help: help, status: 64)
    }

    /// A failure: its message and what to do on stderr, exit status 1 (64 for a usage error).
    static func fail(_ message: String, help: String, status: Int32 = 1) -> Never {
        writeError("Error: \(message)\nHelp: \(help)\n")
        exit(status)
    }

    /// Standard error by its descriptor: the C `stderr` global is shared mutable state to Swift 6.
    static func writeError(_ text: String) {
        text.utf8CString.withUnsafeBufferPointer { bytes in
            _ = write(2, bytes.baseAddress, bytes.count - 1)
        }
    }
}

/// The flags of one command: `--name value`, `--name=value` and bare `--name`, each taken once; what
/// is left when ``finish()`` is called is a usage error.
struct Flags {
    let command: String
    private var remaining: [String]

    init(command: String, _ arguments: [String]) {
        self.command = command
        remaining = arguments
    }

    /// Whether `-h` or `--help` was given.
    var wantsHelp: Bool { remaining.contains("-h") || remaining.contains("--help") }

    /// The value of `name`, removed from the arguments; `nil` when the flag is absent.
    mutating func string(_ name: String) -> String? {
        for (index, argument) in remaining.enumerated() {
            if argument == name {
                guard index + 1 < remaining.count else {
                    TimeSyncWithoutCLITrait.fail(usage: "\(name) needs a value", help: "Run 'timesync \(command) --help' for the flags and what they take.")
                }
                let value = remaining[index + 1]
                remaining.removeSubrange(index...(index + 1))
                return value
            }
            if argument.hasPrefix(name + "=") {
                remaining.remove(at: index)
                return String(argument.dropFirst(name.count + 1))
            }
        }
        return nil
    }

    /// Every value of a repeatable flag, removed from the arguments.
    mutating func strings(_ name: String) -> [String] {
        var values: [String] = []
        while let value = string(name) { values.append(value) }
        return values
    }

    /// The arguments that are not flags (call it after taking every flag), removed.
    mutating func positionals() -> [String] {
        let taken = remaining.filter { !$0.hasPrefix("-") }
        remaining.removeAll { !$0.hasPrefix("-") }
        return taken
    }

    /// Whether the bare flag `name` was given (removed from the arguments).
    mutating func flag(_ name: String) -> Bool {
        guard let index = remaining.firstIndex(of: name) else { return false }
        remaining.remove(at: index)
        return true
    }

    mutating func double(_ name: String) -> Double? {
        string(name).map { text in
            guard let value = Double(text), value.isFinite else { invalid(name, text, "a number") }
            return value
        }
    }

    mutating func int(_ name: String) -> Int? {
        string(name).map { text in
            guard let value = Int(text) else { invalid(name, text, "a whole number") }
            return value
        }
    }

    mutating func unsigned(_ name: String) -> UInt64? {
        string(name).map { text in
            guard let value = UInt64(text) else { invalid(name, text, "a whole number from 0") }
            return value
        }
    }

    /// Ends parsing: anything left is a usage error that names it.
    func finish() {
        guard let first = remaining.first else { return }
        TimeSyncWithoutCLITrait.fail(
            usage: "unknown flag or argument '\(first)' for '\(command)'", help: "Run 'timesync \(command) --help' for the flags and what they take.")
    }

    private func invalid(_ name: String, _ text: String, _ kind: String) -> Never {
        TimeSyncWithoutCLITrait.fail(usage: "\(name) '\(text)': give \(kind)", help: "Run 'timesync \(command) --help' for the flags and what they take.")
    }
}
#endif
