#if CLI
import Foundation
import Testing
import TimeSyncTestSupport

/// HTTP sources hold a step as suspect until a later, separate measurement confirms it, and a server
/// replaying one stored response is never taken twice: real `timesync watch` against a real Python
/// HTTP server whose `Date` is shifted (or frozen) from a control file while the watch runs.
@Suite(.serialized) struct HTTPStepInteropTests {
    /// `Date` = the real time + the shift in the control file, or, when the file says `replay`, the
    /// time the server started less an hour, forever (one stored response, replayed).
    static let server = """
        import email.utils, http.server, sys, time
        control = sys.argv[1]
        started = time.time()
        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            def log_message(self, *args): pass
            def date_time_string(self, timestamp=None):
                with open(control) as f: text = f.read().strip()
                now = started - 3600 if text == "replay" else time.time() + float(text or 0)
                with open(control + ".log", "a") as f: f.write(text + "\\n")
                return email.utils.formatdate(now, usegmt=True)
            def do_GET(self):
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        print(server.server_address[1], flush=True)
        server.serve_forever()
        """

    struct Server {
        let process: ChildProcess
        let port: Int
        let control: String
        let directory: String

        init() async throws {
            let python = try #require(Interop.find("python3"), "python3 is missing: run scripts/install-test-deps")
            directory = try makeTemporaryDirectory()
            control = "\(directory)/shift"
            try "0".write(toFile: control, atomically: true, encoding: .utf8)
            let script = "\(directory)/serve.py"
            try HTTPStepInteropTests.server.write(toFile: script, atomically: true, encoding: .utf8)
            let process = try ChildProcess(python, [script, control])
            self.process = process
            guard try await process.wait(until: { Int(process.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) != nil }),
                let port = Int(process.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
            else {
                process.stop()
                throw TestFailure("the Python server did not start: \(process.stderr)")
            }
            self.port = port
        }

        func set(_ value: String) throws { try value.write(toFile: control, atomically: true, encoding: .utf8) }

        /// How many requests were answered with `value` in the control file.
        func answered(_ value: String) -> Int {
            ((try? String(contentsOfFile: control + ".log", encoding: .utf8)) ?? "").split(separator: "\n").filter { $0 == value }.count
        }

        func stop() {
            process.stop()
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    /// Starts `watch --json` on the server for `seconds`; returns the process.
    func watch(_ server: Server, seconds: Int) throws -> ChildProcess {
        let binary = try #require(Interop.timesyncBinary(), "build the timesync executable first")
        return try ChildProcess(binary, ["watch", "--json", "http://127.0.0.1:\(server.port)/", "--duration", "\(seconds)", "--timeout", "2"])
    }

    func updates(_ watch: ChildProcess) -> [WatchInteropTests.Update] {
        watch.stdout.split(separator: "\n").filter { !$0.contains("\"event\"") }
            .compactMap { try? JSONDecoder().decode(WatchInteropTests.Update.self, from: Data($0.utf8)) }
    }

    /// +30 s for 1.2 s, then right again: no line is `synchronized` at +30 s.
    @Test(.enabled(if: Interop.shouldRun(["python3"])), .timeLimit(.minutes(2)))
    func aBriefStepIsNeverSynchronized() async throws {
        let server = try await Server()
        defer { server.stop() }
        let run = try watch(server, seconds: 16)
        defer { run.stop() }
        #expect(try await run.wait(timeout: .seconds(20)) { updates(run).contains { $0.status == "synchronized" } }, "\(run.stderr)")
        // The step lasts from the first request answered wrong to 1.2 s later.
        try server.set("30")
        #expect(try await run.wait(timeout: .seconds(15)) { server.answered("30") > 0 }, "no request came during the step")
        try await Task.sleep(for: .milliseconds(1200))
        try server.set("0")
        print("HTTP Date +30 s for 1.2 s: \(server.answered("30")) responses were 30 s ahead")
        _ = try await run.wait(timeout: .seconds(30)) { !run.process.isRunning }
        let lines = updates(run)
        print("HTTP Date +30 s for 1.2 s: " + lines.map { "\($0.status) \(String(format: "%+.3f", $0.offset ?? .nan))" }.joined(separator: ", "))
        #expect(!lines.contains { $0.status == "synchronized" && ($0.offset ?? 0) > 15 }, "\(lines.map { ($0.status, $0.offset ?? .nan) })")
    }

    /// A lasting +30 s step: the first measurement that sees it leaves the clock where it was (not
    /// `synchronized` at +30 s); a later one confirms it.
    @Test(.enabled(if: Interop.shouldRun(["python3"])), .timeLimit(.minutes(2)))
    func aLastingStepIsConfirmedByALaterMeasurement() async throws {
        let server = try await Server()
        defer { server.stop() }
        let run = try watch(server, seconds: 20)
        defer { run.stop() }
        #expect(try await run.wait(timeout: .seconds(20)) { updates(run).contains { $0.status == "synchronized" } }, "\(run.stderr)")
        let before = updates(run).count
        try server.set("30")
        _ = try await run.wait(timeout: .seconds(40)) { !run.process.isRunning }
        let after = Array(updates(run).dropFirst(before))
        print("HTTP Date stepped +30 s: " + after.map { "\($0.status) \(String(format: "%+.3f", $0.offset ?? .nan))" }.joined(separator: ", "))
        let firstStepped = after.firstIndex { $0.status != "synchronized" || ($0.offset ?? 0) > 15 }
        let first = try #require(firstStepped.map { after[$0] }, "no line saw the step")
        #expect(first.status != "synchronized", "the first measurement of the step is held: \(first.status) \(first.offset ?? .nan)")
        #expect(after.contains { $0.status == "synchronized" && abs(($0.offset ?? 0) - 30) < 1 }, "a later measurement confirms the step")
    }

    /// One stored response replayed (a `Date` an hour old that never moves, no `TimeSync-Time`, no
    /// `Age`): successive measurements contradict each other, and the watch does not call them
    /// synchronized.
    @Test(.enabled(if: Interop.shouldRun(["python3"])), .timeLimit(.minutes(2)))
    func aReplayedResponseIsNotSynchronizedTwice() async throws {
        let server = try await Server()
        defer { server.stop() }
        try server.set("replay")
        let run = try watch(server, seconds: 12)
        defer { run.stop() }
        _ = try await run.wait(timeout: .seconds(40)) { !run.process.isRunning }
        let lines = updates(run)
        print("HTTP Date replayed: " + lines.map { "\($0.status) \(String(format: "%+.3f", $0.offset ?? .nan)) ±\(String(format: "%.3f", $0.error ?? .nan))" }.joined(separator: ", "))
        #expect(lines.count >= 2, "\(run.stderr)")
        let synchronized = lines.filter { $0.status == "synchronized" }
        // Every pair of synchronized lines agrees within their error bars (and the time it took).
        for (a, b) in zip(synchronized, synchronized.dropFirst()) {
            let gap = abs((a.offset ?? 0) - (b.offset ?? 0))
            #expect(gap <= (a.error ?? 0) + (b.error ?? 0) + 0.01, "synchronized at \(a.offset ?? .nan) and at \(b.offset ?? .nan)")
        }
        #expect(lines.last?.status != "synchronized", "the replay is a suspect by the end: \(lines.last?.status ?? "-")")
    }
}
#endif
