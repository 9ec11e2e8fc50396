#if CLI
import Foundation
import Testing
import TimeSync
import TimeSyncWire
import TimeSyncNTP
import TimeSyncNTPServer
import TimeSyncTestSupport

/// What `timesync watch` says about sources that do not simply answer: kisses, an unsynchronized
/// chronyd, silence, a store it cannot write, a forged store — on real sockets and real chronyd.
@Suite(.serialized) struct WatchStatesTests {
    static func watch(_ arguments: [String], environment: [String: String] = [:], timeout: Duration = .seconds(40)) async throws -> (
        status: Int32, lines: [[String: Any]], stderr: String
    ) {
        let binary = try #require(Interop.timesyncBinary(), "build the timesync executable first")
        let run = try await ChildProcess.run(binary, ["watch"] + arguments, environment: environment, timeout: timeout)
        let lines = run.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        return (run.status, lines, run.stderr)
    }

    static func states(_ line: [String: Any]) -> [String] {
        (line["sources"] as? [[String: Any]] ?? []).map { ($0["state"] as? String ?? "") + (($0["kissCode"] as? String).map { " \($0)" } ?? "") }
    }

    /// A kissing server is `kissed` with its code (not `pending` forever), an answering one `selected`.
    @Test(.enabled(if: Interop.timesyncBinary() != nil), .timeLimit(.minutes(1)), arguments: ["RATE", "DENY"])
    func aKissIsAStateWithItsCode(_ code: String) async throws {
        let kissing = try await FakeNTPServer.start { request in
            var kiss = goodReply(to: request)
            kiss.stratum = 0
            kiss.referenceID = NTPReferenceID(ascii: code)!
            return [kiss.encoded()]
        }
        let honest = try await FakeNTPServer.start { [goodReply(to: $0).encoded()] }
        defer { Task { await kissing.close(); await honest.close() } }
        let result = try await Self.watch(
            ["--json", "--duration", "3", "--timeout", "0.5", "--interval", "1", "ntp://127.0.0.1:\(kissing.address.port!)", "ntp://127.0.0.1:\(honest.address.port!)"])
        let last = try #require(result.lines.last { $0["status"] != nil }, "\(result.stderr)")
        print("watch with a \(code) kiss: \(Self.states(last))")
        #expect(Self.states(last) == ["kissed \(code)", "selected"])
        #expect(result.lines.contains { $0["event"] as? String == "kissed" })
    }

    /// A real chronyd with no time source of its own answers LI 3 / stratum 0: `unsynchronized`.
    @Test(.enabled(if: Interop.shouldRun(["chronyd"]) && Interop.timesyncBinary() != nil), .timeLimit(.minutes(1)))
    func anUnsynchronizedChronydIsNamedSo() async throws {
        let chronyd = try #require(Interop.chronyd, "chronyd is missing: run scripts/install-test-deps")
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let port = try await freeUDPPort()
        // No `local stratum`: chronyd has no reference and says so in every reply.
        try """
            port \(port)
            bindaddress 127.0.0.1
            allow 127.0.0.1
            cmdport 0
            bindcmdaddress /
            pidfile \(directory)/chronyd.pid
            """.write(toFile: "\(directory)/chrony.conf", atomically: true, encoding: .utf8)
        let server = try ChildProcessGroup(chronyd, ["-U", "-x", "-d", "-f", "\(directory)/chrony.conf"], outputPath: "\(directory)/chronyd.log")
        defer { server.stop() }
        try await Task.sleep(for: .seconds(1))
        let result = try await Self.watch(["--duration", "3", "--timeout", "0.5", "ntp://127.0.0.1:\(port)"])
        print("watch against an unsynchronized chronyd: exit \(result.status); stderr: \(result.stderr.split(separator: "\n").first ?? "")")
        #expect(result.status == 1)
        #expect(result.stderr.contains("not synchronized"), "\(result.stderr)")
        #expect(result.stderr.contains("no source answered"), "\(result.stderr)")
        // Beside an answering server, its state says why it is not used (it is not `unreachable`).
        let honest = try await FakeNTPServer.start { [goodReply(to: $0).encoded()] }
        defer { Task { await honest.close() } }
        let both = try await Self.watch(
            ["--json", "--duration", "3", "--timeout", "0.5", "--interval", "1", "ntp://127.0.0.1:\(port)", "ntp://127.0.0.1:\(honest.address.port!)"])
        let last = try #require(both.lines.last { $0["status"] != nil }, "\(both.stderr)")
        #expect(Self.states(last) == ["unsynchronized", "selected"])
    }

    /// Every source silent: each failure on stderr, a closing line, exit 1 — not an empty run.
    @Test(.enabled(if: Interop.timesyncBinary() != nil), .timeLimit(.minutes(1)))
    func whenNothingAnswersItSaysSoAndFails() async throws {
        let silent = try await FakeNTPServer.start { _ in [] }
        defer { Task { await silent.close() } }
        let text = try await Self.watch(["--duration", "2", "--timeout", "0.3", "ntp://127.0.0.1:\(silent.address.port!)"])
        #expect(text.status == 1)
        #expect(text.stderr.contains("127.0.0.1:\(silent.address.port!)"), "\(text.stderr)")
        #expect(text.stderr.contains("no source answered within 2.0 s"), "\(text.stderr)")
        let json = try await Self.watch(["--json", "--duration", "2", "--timeout", "0.3", "ntp://127.0.0.1:\(silent.address.port!)"])
        #expect(json.status == 1)
        #expect(json.lines.contains { $0["event"] as? String == "failed" && ($0["error"] as? String ?? "").contains("timed out") || $0["event"] as? String == "failed" })
    }

    /// A store path under a regular file cannot be written: a warning, and the watch goes on.
    @Test(.enabled(if: Interop.timesyncBinary() != nil), .timeLimit(.minutes(1)))
    func aStoreThatCannotBeWrittenIsAWarning() async throws {
        let honest = try await FakeNTPServer.start { [goodReply(to: $0).encoded()] }
        defer { Task { await honest.close() } }
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Data("a file, not a directory".utf8).write(to: URL(fileURLWithPath: "\(directory)/file"))
        let store = "\(directory)/file/timesync/calibration.json"
        let result = try await Self.watch(
            ["--duration", "2", "--timeout", "0.5", "--store", store, "ntp://127.0.0.1:\(honest.address.port!)"],
            environment: ["XDG_DATA_HOME": directory])
        #expect(result.status == 0)
        // One line: what failed (the path), the system's reason, what to do; no error dump.
        let warnings = result.stderr.split(separator: "\n").filter { $0.contains("warning") }
        #expect(
            warnings.first
                == "timesync watch: warning: the calibration store \(store) cannot be written: cannot make its directory \(directory)/file: Not a directory; give a path in a directory this user can write, or fix the permissions (until a write succeeds, the calibration will not survive a restart)",
            "\(result.stderr)")
        #expect(!result.stderr.contains("Error Domain") && !result.stderr.contains("NSUnderlyingError"), "\(result.stderr)")
    }
}
#endif
