#if CLI
import ArgumentParser
import Foundation
import TimeSync

@main
struct TimeSyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "timesync",
        abstract: "Server time you can trust: query, watch, serve, simulate, demo.",
        discussion: """
            Exit status: 0 on success, 64 for a usage error (a malformed or out-of-range flag or \
            argument), 1 for any other failure. Each failure says what happened and what to do; with \
            --json it is a JSON object on stdout whose errorType is a stable name (see the README).
            """,
        subcommands: [Query.self, Watch.self, Serve.self, Roughtime.self, Simulate.self, Demo.self])

    /// Parses, runs, and reports failures: usage errors as ArgumentParser does (or as JSON under
    /// `--json`), a ``CommandFailure`` with its message and what to do.
    nonisolated static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        // Before parsing succeeds only the raw arguments can say whether JSON was asked for.
        let wantsJSON = arguments.prefix { $0 != "--" }.contains("--json")
        var command: any ParsableCommand
        do {
            command = try parseAsRoot(arguments)
        } catch {
            let code = exitCode(for: error)
            guard wantsJSON, code == .validationFailure else { exit(withError: error) }
            let subcommand = arguments.first { name in configuration.subcommands.contains { $0._commandName == name } }
            CommandFailure.invalidArgument(
                message(for: error).replacingOccurrences(of: "\n", with: " "),
                help: "Run 'timesync \(subcommand.map { "\($0) " } ?? "")--help' for the flags and what they take."
            ).report(json: true)
            exit(withError: ExitCode.validationFailure)
        }
        // The commands with a `--json` flag print their failures as JSON objects on stdout.
        let json = (command as? Query)?.json ?? (command as? Watch)?.json ?? (command as? Simulate)?.json ?? false
        do {
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let failure as CommandFailure {
            failure.report(json: json)
            exit(withError: failure.exitCode)
        } catch {
            exit(withError: error)
        }
    }
}

#endif
