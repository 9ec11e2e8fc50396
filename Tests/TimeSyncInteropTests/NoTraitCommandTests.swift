import Foundation
import Testing
import TimeSyncTestSupport

/// The command built with no trait, where `scripts/test` builds it.
private let noTraitBinary: String? = {
    let path = Interop.packageRoot.appendingPathComponent(".build-notrait/debug/timesync").path
    return FileManager.default.isExecutableFile(atPath: path) ? path : nil
}()

/// `timesync` built with no trait (`swift run timesync demo` in a fresh clone; `scripts/test` builds it
/// into `.build-notrait`): the offline story runs, flags are checked as the full command checks them,
/// and a command that needs the trait says how to build it.
@Suite(.enabled(if: noTraitBinary != nil || Interop.required), .serialized)
struct NoTraitCommandTests {
    static func run(_ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
        let binary = try #require(noTraitBinary, "build it first: swift build --scratch-path .build-notrait")
        return try await ChildProcess.run(binary, arguments, timeout: .seconds(60))
    }

    @Test func theDemoTellsItsStoryWithNoTrait() async throws {
        let run = try await Self.run(["demo", "--sale-in", "2"])
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout.contains("synchronized (3 servers agree)"), "\(run.stdout)")
        #expect(run.stdout.contains("the user sets the device clock forward by one hour"), "\(run.stdout)")
        #expect(run.stdout.contains("sale started: the clock is within the sale window for certain"), "\(run.stdout)")
    }

    @Test func simulatePrintsTheTableAndItsLegend() async throws {
        let run = try await Self.run(["simulate", "--scenario", "mobile", "--seed", "7"])
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout.contains("scenario mobile, seed 7"), "\(run.stdout)")
        #expect(run.stdout.contains("not vouched: readings it gave no time for"), "\(run.stdout)")
        let json = try await Self.run(["simulate", "--scenario=mobile", "--json"])
        #expect(json.status == 0, "\(json)")
        #expect((try? JSONSerialization.jsonObject(with: Data(json.stdout.utf8))) is [String: Any], "\(json.stdout.prefix(200))")
    }

    @Test(arguments: [
        (["demo", "--sale-in", "99"], "--sale-in 99: give 2 to 60 seconds"),
        (["demo", "--seed", "-1"], "--seed '-1': give a whole number from 0"),
        (["demo", "--server-offset"], "--server-offset needs a value"),
        (["demo", "--bogus"], "unknown flag or argument '--bogus' for 'demo'"),
        (["simulate"], "simulate needs --scenario"),
        (["simulate", "--scenario", "moon"], "unknown scenario 'moon'"),
        (["query", "ntp://127.0.0.1"], "'timesync query' needs the package's CLI trait"),
        (["serve", "--ntp", "127.0.0.1:123"], "swift run --traits CLI timesync serve --help"),
        (["frobnicate"], "unknown command 'frobnicate'"),
    ])
    func usageErrorsExit64AndSayWhatToDo(arguments: [String], says: String) async throws {
        let run = try await Self.run(arguments)
        #expect(run.status == 64, "\(arguments): \(run)")
        #expect(run.stderr.contains(says), "\(arguments): \(run.stderr)")
        #expect(run.stderr.contains("Help: "), "\(arguments): \(run.stderr)")
    }
}
