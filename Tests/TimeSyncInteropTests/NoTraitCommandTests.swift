#if CLI
import Foundation
import Testing
import TimeSync
import TimeSyncNTPServer
import TimeSyncTestSupport

/// The command built with no trait, where `scripts/test` builds it.
private let noTraitBinary: String? = {
    let path = Interop.packageRoot.appendingPathComponent(".build-notrait/debug/timesync").path
    return FileManager.default.isExecutableFile(atPath: path) ? path : nil
}()

/// `timesync` built with no trait (`swift run --scratch-path .build-notrait timesync demo` in a fresh clone; `scripts/test` builds it
/// into `.build-notrait`): the offline story runs; `query` and `watch` measure real NTP and HTTP
/// servers (NTP on the system's sockets, HTTP on URLSession) and print what the full command prints;
/// flags are checked as the full command checks them; what needs the trait says how to build it.
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
        (["query", "nts://127.0.0.1"], "nts:// needs the package's CLI trait"),
        (["watch", "roughtime://127.0.0.1:2002?key=AW5uAoTSTDfG5NfY1bTh08GUnOqlRb+HVhbJ3ODJvsE="], "roughtime:// needs the package's CLI trait"),
        (["query", "ntp://127.0.0.1", "ntp://127.0.0.2"], "query takes one server URL, not 2"),
        (["query"], "query needs a server URL"),
        (["query", "--samples", "0", "ntp://127.0.0.1"], "--samples 0: give a number of samples from 1 to 64"),
        (["query", "--date-only", "ntp://127.0.0.1"], "--date-only applies to http(s) URLs"),
        (["watch"], "no source: give at least one"),
        (["watch", "ntp://127.0.0.1", "--timeout", "0"], "--timeout 0.0: give seconds, more than 0 and at most 60"),
        (["serve", "--ntp", "127.0.0.1:123"], "swift run --traits CLI timesync serve --help"),
        (["frobnicate"], "unknown command 'frobnicate'"),
        (["query", "ntp://\(String(repeating: "a", count: 300)).example"], "is 300 octets long; a DNS label has at most 63"),
        (["watch", "http://\(String(repeating: "a", count: 300)).example/"], "is 300 octets long; a DNS label has at most 63"),
    ])
    func usageErrorsExit64AndSayWhatToDo(arguments: [String], says: String) async throws {
        let run = try await Self.run(arguments)
        #expect(run.status == 64, "\(arguments): \(run)")
        #expect(run.stderr.contains(says), "\(arguments): \(run.stderr)")
        #expect(run.stderr.contains("Help: "), "\(arguments): \(run.stderr)")
    }

    /// A text line of `query`, every value named (the same pattern the full command's lines match).
    static let queryLine =
        #"^\d{4}-\d\d-\d\dT[0-9:.]+Z  offset [+-]\d+\.\d{6} s ± \d+\.\d{6} s  server 127\.0\.0\.1:\d+  "#

    @Test("query ntp:// measures a real NTP server on the system's sockets")
    func queryNTP() async throws {
        try await withNTPServer { _, address in
            let url = "ntp://127.0.0.1:\(address.port!)"
            let text = try await Self.run(["query", url])
            #expect(text.status == 0, "\(text)")
            #expect(text.stdout.range(of: Self.queryLine + #"address 127\.0\.0\.1  stratum 1  leap none  samples 4  delay \d+\.\d{6} s\n$"#, options: .regularExpression) != nil, "\(text.stdout)")
            let json = try await Self.run(["query", url, "--json", "--samples", "2"])
            #expect(json.status == 0, "\(json)")
            let report = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any], "\(json.stdout)")
            #expect(report["stratum"] as? Int == 1 && report["samples"] as? Int == 2, "\(report)")
            // The server reads this machine's clock: the true offset, 0, lies within the bounds.
            let bounds = try #require(report["bounds"] as? [Double])
            #expect(bounds.count == 2 && bounds[0] <= 0 && 0 <= bounds[1], "\(bounds)")
        }
    }

    @Test(
        "query http:// on URLSession: a Date-only server 2.345 s ahead is measured by the refined Date, the shift within the bounds",
        .enabled(if: Interop.shouldRun(["faketime", "python3"])))
    func queryHTTPDate() async throws {
        let (server, port) = try await InteropTests().startPythonServer()
        defer { server.stop() }
        let run = try await Self.run(["query", "http://127.0.0.1:\(port)/", "--samples", "8", "--json"])
        #expect(run.status == 0, "\(run)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], "\(run.stdout)")
        #expect(report["method"] as? String == "date", "\(report)")
        #expect((report["requests"] as? Int ?? 99) <= 8, "\(report)")
        let bounds = try #require(report["bounds"] as? [Double], "\(report)")
        #expect(bounds.count == 2 && bounds[0] <= 2.345 && 2.345 <= bounds[1], "\(bounds)")
        // Refined below the header's one-second resolution.
        #expect(bounds.count == 2 && bounds[1] - bounds[0] < 0.2, "\(bounds)")
        let text = try await Self.run(["query", "http://127.0.0.1:\(port)/"])
        #expect(text.stdout.range(of: Self.queryLine + #"method date  samples \d  requests \d  delay \d+\.\d{6} s\n$"#, options: .regularExpression) != nil, "\(text)")
    }

    @Test(
        "query http:// on URLSession: the precise header of a timesync server 2.345 s ahead, the shift within the bounds",
        .enabled(if: Interop.shouldRun(["faketime"])))
    func queryHTTPHeader() async throws {
        let binary = try #require(Interop.timesyncBinary(), "build the timesync executable with the CLI trait first")
        let port = try freeLoopbackPort()
        // libfaketime preloaded through `sh -c 'exec …'` (a Swift executable spawned directly with it
        // preloaded loses its argv; exec'd from a shell it does not), not through the `faketime`
        // wrapper: the wrapper names a semaphore after its PID, and one left by a wrapper that was
        // stopped makes a later one with that PID fail ("sem_open: File exists"). In its own process
        // group, stopped as a whole.
        let directory = try makeTemporaryDirectory()
        let server = try ChildProcessGroup(
            "/bin/sh", ["-c", #"exec "$0" "$@""#, binary, "serve", "--http", "127.0.0.1:\(port)"],
            environment: try InteropTests.faketimeEnvironment(), outputPath: directory + "/serve.log")
        defer { server.stop() }
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(20)
        while !server.output.contains("HTTP time server listening"), server.poll() == nil, clock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        try #require(server.output.contains("HTTP time server listening"), "\(server.output)")
        let run = try await Self.run(["query", "http://127.0.0.1:\(port)/time", "--json"])
        #expect(run.status == 0, "\(run)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], "\(run.stdout)")
        #expect(report["method"] as? String == "header" && report["requests"] as? Int == 5, "\(report)")
        let bounds = try #require(report["bounds"] as? [Double], "\(report)")
        #expect(bounds.count == 2 && bounds[0] <= 2.345 && 2.345 <= bounds[1], "\(bounds)")
    }

    @Test("query http:// to a closed port: a refused connection, named, exit status 1")
    func queryHTTPRefused() async throws {
        let port = try freeLoopbackPort()
        let run = try await Self.run(["query", "http://127.0.0.1:\(port)/", "--json"])
        #expect(run.status == 1, "\(run)")
        let failure = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], "\(run.stdout)")
        #expect(failure["errorType"] as? String == "refused", "\(failure)")
        #expect((failure["help"] as? String)?.contains("Check the URL's port") == true, "\(failure)")
    }

    @Test("watch: an NTP and an HTTP source synchronize the clock, each line naming every value")
    func watchNTPAndHTTP() async throws {
        let binary = try #require(Interop.timesyncBinary(), "build the timesync executable with the CLI trait first")
        let port = try freeLoopbackPort()
        let server = try ChildProcess(binary, ["serve", "--http", "127.0.0.1:\(port)"])
        defer { server.stop() }
        #expect(try await server.wait(timeout: .seconds(20)) { server.stderr.contains("HTTP time server listening") }, "\(server.stderr)")
        try await withNTPServer { _, address in
            let run = try await Self.run(["watch", "ntp://127.0.0.1:\(address.port!)", "http://127.0.0.1:\(port)/time", "--duration", "4"])
            #expect(run.status == 0, "\(run)")
            let lines = run.stdout.split(separator: "\n").map(String.init)
            let synchronized = lines.filter {
                $0.range(of: #"  synchronized  offset [+-]\d+\.\d{6} s ± \d+\.\d{6} s  device clock (within 1 s|ahead \d+\.\d{3} s ± \d+\.\d{3} s|behind \d+\.\d{3} s ± \d+\.\d{3} s|unknown)  sources: 127\.0\.0\.1:\d+ selected [+-]\d+\.\d{6} s \(\d+ s ago\); 127\.0\.0\.1:\d+ selected "#, options: .regularExpression) != nil
            }
            #expect(!synchronized.isEmpty, "\(run.stdout)")
        }
    }

    /// The flag reader takes the argument after an option as its value, a negative number included.
    @Test("watch --deadline takes a negative number of Unix seconds without '='")
    func negativeDeadline() async throws {
        try await withNTPServer { _, address in
            let run = try await Self.run(["watch", "ntp://127.0.0.1:\(address.port!)", "--duration", "1", "--deadline", "-6999999999"])
            #expect(run.status == 0, "\(run)")
            #expect(run.stdout.contains("1748-03-06T11:33:21.000Z certainly passed"), "\(run.stdout)")
        }
    }

    @Test("watch with no source answering: each failure on stderr, exit status 1")
    func watchNothingAnswers() async throws {
        let port = try await freeUDPPort()
        let run = try await Self.run(["watch", "ntp://127.0.0.1:\(port)", "--duration", "2", "--timeout", "1"])
        #expect(run.status == 1, "\(run)")
        #expect(run.stderr.contains("no source answered within 2.0 s"), "\(run.stderr)")
        #expect(run.stderr.contains("127.0.0.1:\(port)"), "\(run.stderr)")
    }
}
#endif
