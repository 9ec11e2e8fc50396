#if CLI
import ArgumentParser
import Foundation
import TimeSync
import TimeSyncTesting

/// `timesync demo`: a server whose clock is off, a device clock the user changes mid-run, and a
/// calibrated clock and a countdown that stay right. Offline, in-process, about ten seconds.
struct Demo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Watch a calibrated clock and a countdown stay right while the device clock is changed.")

    @Option(parsing: .unconditional, help: ArgumentHelp(DemoOptions.Help.serverOffset))
    var serverOffset: Double = DemoOptions().serverOffset

    @Option(parsing: .unconditional, help: ArgumentHelp(DemoOptions.Help.saleIn))
    var saleIn: Int = DemoOptions().saleIn

    @Option(parsing: .unconditional, help: ArgumentHelp(DemoOptions.Help.seed))
    var seed: UInt64 = DemoOptions().seed

    var options: DemoOptions { DemoOptions(serverOffset: serverOffset, saleIn: saleIn, seed: seed) }

    func validate() throws {
        if let problem = options.problem { throw ValidationError(problem) }
    }

    func run() async throws {
        do {
            try await runDemo(options)
        } catch let failure as DemoFailure {
            throw CommandFailure(kind: .noMajority, message: failure.message, help: failure.help)
        }
    }
}
#endif
