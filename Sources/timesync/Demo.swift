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

    @Option(parsing: .unconditional, help: "How far the demo server's clock is ahead of this device, in seconds (negative: behind).")
    var serverOffset: Double = DemoOptions().serverOffset

    @Option(parsing: .unconditional, help: "Seconds until the demo flash sale starts (server time), 2 to 60.")
    var saleIn: Int = DemoOptions().saleIn

    @Option(help: "The seed of the simulated network's delays.")
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
