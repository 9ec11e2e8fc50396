#if CLI
import AsyncHTTPClient
import Foundation
import Logging
import Testing
import TimeSync
import TimeSyncTestSupport
import TimeSyncAsyncHTTPClient
import TimeSyncHTTP

/// Real servers in child processes under libfaketime, on loopback.
///
/// The tools (faketime, python3, htpdate) come from `scripts/install-test-deps`. Without them these
/// tests are skipped, unless `TIMESYNC_REQUIRE_INTEROP=1`, which makes a missing tool a failure.
@Suite("Interoperability under libfaketime", .serialized)
struct InteropTests {
    /// The server's clock shift. Not a multiple of htpdate's 1/16 s grid, so neither tool gets lucky.
    static let shift: Duration = .milliseconds(2345)
    static let faketimeSpec = "+2.345s"

    /// The child environment for the shift; fails the test when libfaketime is missing.
    static func faketimeEnvironment() throws -> [String: String] {
        _ = try #require(Interop.find("faketime"), "faketime is missing: run scripts/install-test-deps")
        return try #require(try? Interop.fakeTimeEnvironment(faketimeSpec), "libfaketime.so.1 not found")
    }

    /// Python's http.server (HTTP/1.1 keep-alive, so htpdate's repeated HEADs on one connection work),
    /// printing its port; it only has the `Date` header.
    static let pythonServer = """
        import functools, http.server, sys, time
        delay = float(sys.argv[2]) if len(sys.argv) > 2 else 0.0
        class Handler(http.server.SimpleHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            def log_message(self, *args): pass
            def send_response(self, *args, **kwargs):
                # A distant server: the Date is stamped after the delay. Busy-wait on the monotonic
                # clock: libfaketime's sleep wrappers break Python's time.sleep.
                end = time.monotonic() + delay
                while time.monotonic() < end: pass
                super().send_response(*args, **kwargs)
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=sys.argv[1]))
        print(server.server_address[1], flush=True)
        server.serve_forever()
        """

    func requireTool(_ name: String) throws -> String {
        try #require(Interop.find(name), "\(name) is missing: run scripts/install-test-deps")
    }

    /// Starts the Python `Date`-only server under faketime; returns the process and its port.
    /// - Parameter delay: Seconds the server waits before answering (a slower, more distant host).
    func startPythonServer(delay: Double = 0) async throws -> (ChildProcess, Int) {
        let environment = try Self.faketimeEnvironment()
        let python = try requireTool("python3")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("timesync-py-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let script = directory.appendingPathComponent("serve.py")
        try Self.pythonServer.write(to: script, atomically: true, encoding: .utf8)
        let child = try ChildProcess(python, [script.path, directory.path, String(delay)], environment: environment)
        let started = try await child.wait { Int(child.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) != nil }
        guard started, let port = Int(child.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            child.stop()
            throw TestFailure("python http.server did not start: \(child.stderr)")
        }
        return (child, port)
    }

    /// Date-only measurement with at most `requests` requests; returns the offset error and the report.
    func measureDateOnly(port: Int, requests: Int) async throws -> (error: Int64, measurement: HTTPTimeMeasurement, bounds: OffsetInterval) {
        let http = HTTPTimeSource.makeClient()
        defer { _ = http.shutdown() }
        let timeBase = SystemTimeBase()
        let source = try HTTPTimeSource(
            url: "http://127.0.0.1:\(port)/", client: http, policy: .dateOnly, timeBase: timeBase, logger: Logger(label: "client"))
        let measurement = try await source.measure(samples: requests - 1)
        let wallOffset = measurement.wallOffset(timeBase.wallClockPair())
        let (offset, bounds) = (wallOffset.estimate.nanosecondsClamped, wallOffset.bounds)
        return (offset - Self.shift.nanosecondsClamped, measurement, bounds)
    }

    @Test(
        "python http.server under faketime, Date only: offset within 25 ms using at most 10 requests",
        .enabled(if: Interop.shouldRun(["faketime", "python3"])))
    func pythonDateOnly() async throws {
        let (server, port) = try await startPythonServer()
        defer { server.stop() }
        let (error, measurement, bounds) = try await measureDateOnly(port: port, requests: 10)
        print(
            "Date-only vs python http.server: error \(Double(error) / 1e6) ms, bounds ±\(Double(bounds.halfWidth) / 1e6) ms, "
                + "\(measurement.requests) requests, \(measurement.samples.count) samples, delay \(Double(measurement.delay) / 1e6) ms")
        #expect(measurement.scheme == .date)
        #expect(measurement.requests <= 10)
        #expect(abs(error) < 25_000_000)
        // Honest bounds: the true shift lies inside.
        #expect(bounds.contains(Self.shift.nanosecondsClamped))
    }

    @Test(
        "several Date-only hosts: the lowest-latency one is used and the bounds stay honest",
        .enabled(if: Interop.shouldRun(["faketime", "python3"])))
    func lowestLatencyHost() async throws {
        let (slow, slowPort) = try await startPythonServer(delay: 0.04)
        defer { slow.stop() }
        let (fast, fastPort) = try await startPythonServer()
        defer { fast.stop() }
        let http = HTTPTimeSource.makeClient()
        defer { _ = http.shutdown() }
        let timeBase = SystemTimeBase()
        let sources = try [slowPort, fastPort].map { port in
            try HTTPTimeSource(url: "http://127.0.0.1:\(port)/", client: http, timeBase: timeBase, logger: Logger(label: "client"))
        }
        let measurement = try await HTTPDateCalibrator(sources: sources, maxRequests: 12).run()
        let wallOffset = measurement.wallOffset(timeBase.wallClockPair())
        let (offset, bounds) = (wallOffset.estimate.nanosecondsClamped, wallOffset.bounds)
        let error = offset - Self.shift.nanosecondsClamped
        print("two Date-only hosts (40 ms and 0 ms extra latency): chose \(measurement.source), error \(Double(error) / 1e6) ms, bounds ±\(Double(bounds.halfWidth) / 1e6) ms, \(measurement.requests) requests, \(measurement.rejected) rejected")
        #expect(measurement.source == "127.0.0.1:\(fastPort)")
        #expect(measurement.requests <= 12)
        #expect(bounds.contains(Self.shift.nanosecondsClamped))
        #expect(abs(error) < 25_000_000)
    }

    @Test(
        "side by side with htpdate -q on the same Date-only server and shift",
        .enabled(if: Interop.shouldRun(["faketime", "python3", "htpdate"])))
    func sideBySideWithHtpdate() async throws {
        let htpdate = try requireTool("htpdate")
        let (server, port) = try await startPythonServer()
        defer { server.stop() }
        let result = try await ChildProcess.run(htpdate, ["-q", "127.0.0.1:\(port)"])
        let output = result.stdout + result.stderr
        // htpdate 1.3 prints "Offset 2.312 seconds" (older versions: "Offset 2312.0 ms").
        let htpdateOffset = try #require(Self.parseHtpdateOffset(output), "unexpected htpdate output: \(output)")
        let htpdateError = htpdateOffset - Self.shift.secondsValue
        let (error, measurement, bounds) = try await measureDateOnly(port: port, requests: 10)
        print(
            "side by side, shift \(Self.shift.secondsValue) s: htpdate -q error \(htpdateError * 1e3) ms; "
                + "TimeSync Date-only error \(Double(error) / 1e6) ms (±\(Double(bounds.halfWidth) / 1e6) ms, \(measurement.requests) requests)")
        // htpdate claims ±0.5 s; its default precision (4 steps) gives a 1/16 s grid.
        #expect(abs(htpdateError) < 0.5)
        #expect(abs(error) < 25_000_000)
    }

    @Test(
        "timesync serve --http under faketime: own header within 2 ms of the shift",
        .enabled(if: Interop.shouldRun(["faketime"]) && (Interop.required || TimesyncBinary.servesHTTP)))
    func timesyncServeHTTP() async throws {
        let environment = try Self.faketimeEnvironment()
        let binary = try #require(Interop.timesyncBinary(), "timesync binary not built")
        try #require(TimesyncBinary.servesHTTP, "`timesync serve --http` is not wired in the CLI yet")
        let port = try freeLoopbackPort()
        // Through `sh -c 'exec …'`: a Swift executable spawned directly with libfaketime preloaded
        // loses its argv (it sees no subcommand); exec'd from a shell it does not. The shell replaces
        // itself, so stopping the child still stops the server.
        let server = try ChildProcess(
            "/bin/sh", ["-c", #"exec "$0" "$@""#, binary, "serve", "--http", "127.0.0.1:\(port)"], environment: environment)
        defer { server.stop() }
        let listening = try await server.wait { isListening(port: port) }
        try #require(
            listening,
            "timesync serve did not listen (running: \(server.process.isRunning)): \(server.stdout) \(server.stderr)")

        let http = HTTPTimeSource.makeClient()
        defer { _ = http.shutdown() }
        let timeBase = SystemTimeBase()
        let source = try HTTPTimeSource(url: "http://127.0.0.1:\(port)/time", client: http, timeBase: timeBase, logger: Logger(label: "client"))
        // The reference is the host's wall clock plus the shift: if the host's time service moves
        // that clock while the samples are taken, the reference moves with it. Two readings of
        // wall − monotonic, before and after, say by how much; the check allows exactly that.
        let before = timeBase.wallClockPair()
        let measurement = try await source.measure(samples: 8)
        let after = timeBase.wallClockPair()
        let hostMoved = abs(
            (after.wall.nanoseconds - after.monotonic.nanoseconds) - (before.wall.nanoseconds - before.monotonic.nanoseconds))
            + before.uncertainty + after.uncertainty
        let wallOffset = measurement.wallOffset(after)
        let (offset, bounds) = (wallOffset.estimate.nanosecondsClamped, wallOffset.bounds)
        let error = offset - Self.shift.nanosecondsClamped
        print(
            "timesync serve --http under faketime: error \(Double(error) / 1e6) ms, bounds ±\(Double(bounds.halfWidth) / 1e6) ms, "
                + "host wall clock moved \(Double(hostMoved) / 1e6) ms meanwhile")
        #expect(measurement.scheme == .timeHeader)
        #expect(abs(error) < 2_000_000 + hostMoved)
        let truth = Self.shift.nanosecondsClamped
        #expect(
            bounds.lower - hostMoved <= truth && truth <= bounds.upper + hostMoved,
            "bounds [\(bounds.lower), \(bounds.upper)] ns, host moved \(hostMoved) ns")

        // The CLI's own query against it, when wired: same answer through the JSON.
        if TimesyncBinary.queriesHTTP {
            let query = try await ChildProcess.run(binary, ["query", "http://127.0.0.1:\(port)/time", "--samples", "8", "--json"])
            #expect(query.status == 0, "\(query.stderr)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(query.stdout.utf8)) as? [String: Any])
            let cliOffset = try #require(json["offset"] as? Double)
            print("timesync query --json error: \((cliOffset - Self.shift.secondsValue) * 1e3) ms")
            #expect(abs(cliOffset - Self.shift.secondsValue) < 0.002)
            #expect(json["method"] as? String == "header")
            #expect(json["server"] as? String == "127.0.0.1:\(port)")
        }
    }

    static func parseHtpdateOffset(_ output: String) -> Double? {
        for line in output.split(whereSeparator: \.isNewline) {
            let words = line.split(separator: " ")
            guard let index = words.firstIndex(where: { $0.lowercased().hasPrefix("offset") }),
                index + 1 < words.count, let value = Double(words[index + 1])
            else { continue }
            let unit = index + 2 < words.count ? words[index + 2] : "seconds"
            return unit.hasPrefix("ms") ? value / 1e3 : value
        }
        return nil
    }
}

/// What the built `timesync` binary supports (the CLI wiring is the lead's).
enum TimesyncBinary {
    static func help(_ arguments: [String]) -> String {
        guard let binary = Interop.timesyncBinary() else { return "" }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        do { try process.run() } catch { return "" }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    /// Whether `timesync serve --help` offers `--http`.
    static let servesHTTP = help(["serve", "--help"]).contains("--http")
    /// Whether `timesync query --help` offers `--date-only`.
    static let queriesHTTP = help(["query", "--help"]).contains("--date-only")
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
#endif
