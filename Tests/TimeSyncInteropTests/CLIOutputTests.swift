#if CLI
import Foundation
import Testing
import TimeSync
import TimeSyncNTP
import TimeSyncNTPServer
import TimeSyncTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// What the `timesync` executable prints for a person: every value named, a watch line whose source
/// offsets are each source's own latest, a simulate table with a legend, and a server that says once
/// that each of its servers started and once that it stopped.
@Suite(.enabled(if: Interop.timesyncBinary() != nil || Interop.required), .serialized)
struct CLIOutputTests {
    static func binary() throws -> String {
        try #require(Interop.timesyncBinary(), "build the timesync executable first")
    }

    @Test("watch: each line names the status, offset ± error and each source's own latest offset")
    func watchLinesNameEveryValue() async throws {
        let binary = try Self.binary()
        try await withNTPServer { _, address in
            let url = "ntp://127.0.0.1:\(address.port!)"
            let run = try await ChildProcess.run(binary, ["watch", url, "--duration", "3"], timeout: .seconds(30))
            #expect(run.status == 0, "\(run)")
            let lines = run.stdout.split(separator: "\n").map(String.init)
            let pattern = #"^\d{4}-\d\d-\d\dT[0-9:.]+Z  (synchronized|provisional)  offset [+-]\d+\.\d{6} s ± \d+\.\d{6} s  device clock (within 1 s|ahead \d+\.\d{3} s ± \d+\.\d{3} s|behind \d+\.\d{3} s ± \d+\.\d{3} s|unknown)  sources: 127\.0\.0\.1:\d+ selected ([+-]\d+\.\d{6}) s \(\d+ s ago\)$"#
            let matching = lines.filter { $0.range(of: pattern, options: .regularExpression) != nil }
            #expect(!lines.isEmpty && matching.count == lines.count, "\(run.stdout)")
            // With one source the clock follows it: its own offset lies within the clock's bound.
            for line in matching {
                let numbers = line.matches(of: /[+-]\d+\.\d{6}/).compactMap { Double($0.output) }
                let bound = line.firstMatch(of: /± (\d+\.\d{6})/).flatMap { Double($0.output.1) }
                if numbers.count == 2, let bound {
                    #expect(abs(numbers[0] - numbers[1]) <= bound, "\(line)")
                }
            }
        }
    }

    @Test("simulate: the table has a legend for every column, aligned under the header")
    func simulateTableHasALegend() async throws {
        let run = try await ChildProcess.run(try Self.binary(), ["simulate", "--scenario", "mobile", "--seed", "7"], timeout: .seconds(60))
        #expect(run.status == 0, "\(run)")
        let lines = run.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let header = try #require(lines.first { $0.contains("median error") })
        for column in ["median / p99 / max error:", "median ±:", "coverage:", "not vouched:"] {
            #expect(run.stdout.contains(column), "no legend for \(column): \(run.stdout)")
        }
        // Each row ends where the header ends: the last column is right-aligned under "not vouched".
        let rows = lines.drop { $0 != header }.dropFirst().prefix { !$0.isEmpty }
        #expect(rows.count >= 5, "\(run.stdout)")
        #expect(rows.allSatisfy { $0.count == header.count }, "\(rows.map(\.count)) vs \(header.count)")
    }

    @Test("simulate --javascript: the client's estimator, run by Node on the same streams, scores as the Swift one")
    func simulateRunsTheJavaScriptClient() async throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../web/tools/estimate-streams.mjs").standardizedFileURL.path
        let run = try await ChildProcess.run(
            try Self.binary(), ["simulate", "--scenario", "falsetickers", "--seed", "5", "--json", "--javascript", script], timeout: .seconds(120))
        #expect(run.status == 0, "\(run)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let strategies = try #require(report["strategies"] as? [[String: Any]])
        let byName = Dictionary(uniqueKeysWithValues: strategies.compactMap { s in (s["name"] as? String).map { ($0, s) } })
        let swift = try #require(byName["default"])
        let javascript = try #require(byName["javascript"])
        #expect(byName["timesync-js"] != nil, "enmasseio/timesync's algorithm is in the same table")
        for key in ["medianError", "p99Error", "maxError", "coverage", "unsynchronizedReadings"] {
            #expect("\(swift[key] ?? "-")" == "\(javascript[key] ?? "-")", "\(key): \(swift) vs \(javascript)")
        }
    }

    @Test("simulate --write-streams writes each scenario's samples and outcomes; a bad --javascript is a usage error")
    func simulateWritesStreams() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("streams-\(UInt64.random(in: 0...UInt64.max)).json")
        defer { try? FileManager.default.removeItem(at: file) }
        let run = try await ChildProcess.run(try Self.binary(), ["simulate", "--scenario", "lan", "--write-streams", file.path], timeout: .seconds(60))
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout.contains("wrote 451 samples of 1 scenario(s)"), "\(run.stdout)")
        let streams = try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [[String: Any]]
        #expect(streams?.first?["scenario"] as? String == "lan")
        #expect((streams?.first?["outcomes"] as? [[String]])?.count == 451)
        let missing = try await ChildProcess.run(try Self.binary(), ["simulate", "--scenario", "lan", "--javascript", "/nonexistent/estimate.mjs"], timeout: .seconds(30))
        #expect(missing.status == 64, "\(missing)")
        #expect(missing.stderr.contains("no readable script there"), "\(missing.stderr)")
    }

    @Test("serve: each server's start and stop is logged once, Hummingbird's own start line not repeated")
    func serveLogsEachStartAndStopOnce() async throws {
        let binary = try Self.binary()
        let httpPort = try freeLoopbackPort()
        let ntpPort = try await freeUDPPort()
        let server = try ChildProcess(binary, ["serve", "--http", "127.0.0.1:\(httpPort)", "--ntp", "127.0.0.1:\(ntpPort)", "--local-stratum", "10"])
        defer { server.stop() }
        #expect(
            try await server.wait(timeout: .seconds(20)) {
                server.stderr.contains("HTTP time server listening") && server.stderr.contains("NTP server listening")
            }, "\(server.stderr)")
        kill(server.process.processIdentifier, SIGINT)
        #expect(try await server.wait(timeout: .seconds(10)) { !server.process.isRunning }, "still running after SIGINT: \(server.stderr)")
        let log = server.stderr
        for line in ["HTTP time server listening", "NTP server listening", "HTTP time server stopped", "NTP server stopped"] {
            #expect(log.components(separatedBy: line).count - 1 == 1, "'\(line)' not exactly once:\n\(log)")
        }
        #expect(!log.contains("Server started and listening"), "Hummingbird's start line repeats ours:\n\(log)")
        // The URL to open, with the port it is bound to.
        #expect(log.contains("open http://127.0.0.1:\(httpPort)/ in a browser"), "\(log)")
    }

    @Test("serve on a wildcard address prints a URL this machine opens; a port in use logs no stop")
    func serveNamesTheURLToOpenAndNoStopForAServerThatNeverStarted() async throws {
        let binary = try Self.binary()
        let server = try ChildProcess(binary, ["serve", "--http", "0.0.0.0:0"])
        defer { server.stop() }
        #expect(try await server.wait(timeout: .seconds(20)) { server.stderr.contains("open http://127.0.0.1:") }, "\(server.stderr)")
        let listener = try LoopbackListener()
        defer { listener.close() }
        let busy = try await ChildProcess.run(binary, ["serve", "--http", "127.0.0.1:\(listener.port)"], timeout: .seconds(20))
        #expect(busy.status == 1, "\(busy)")
        #expect(!(busy.stdout + busy.stderr).contains("server stopped"), "a server that never listened logged its stop: \(busy.stderr)")
    }
}
#endif
