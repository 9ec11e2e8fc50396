#if CLI
import Foundation
import NIOCore
import Testing
import TimeSync
import TimeSyncTestSupport
import TimeSyncNTP
import TimeSyncNTPServer

/// Interoperation with chrony. The peers are installed by `scripts/install-test-deps`; with
/// `TIMESYNC_REQUIRE_INTEROP=1` a missing peer fails these tests instead of skipping them.
@Suite(.serialized) struct ChronyNTPTests {
    /// Our client against `chronyd` serving a clock 1.5 s ahead (libfaketime, monotonic clock untouched).
    @Test(.enabled(if: Interop.shouldRun(["chronyd", "faketime"])), .timeLimit(.minutes(1)))
    func clientMeasuresChronydUnderFaketime() async throws {
        let chronyd = try #require(Interop.chronyd, "chronyd is missing: run scripts/install-test-deps")
        #expect(Interop.libfaketime() != nil, "libfaketime is missing: run scripts/install-test-deps")
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let port = try await freeUDPPort()
        try writeChronyConfiguration(port: port, directory: directory)
        let chrony = try ChildProcessGroup(
            // -U: no root check (CI may run unprivileged; -x and a high port need no privilege).
            chronyd, ["-U", "-x", "-d", "-f", "\(directory)/chrony.conf"],
            environment: try Interop.fakeTimeEnvironment("+1.5s"), outputPath: "\(directory)/chronyd.log")
        defer {
            // chronyd runs in faketime's process group; kill it by its pidfile too, in case it left.
            if let pid = try? String(contentsOfFile: "\(directory)/chronyd.pid", encoding: .utf8),
                let number = Int32(pid.trimmingCharacters(in: .whitespacesAndNewlines)), number > 1
            {
                kill(number, SIGKILL)
            }
            chrony.stop()
        }
        // chronyd needs a moment to bind: retry until it answers.
        var first: NTPQueryResult?
        var lastError: (any Error)?
        for _ in 0..<40 where first == nil {
            do {
                first = try await Self.query(port: port)
            } catch {
                lastError = error
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        let answered = try #require(first, "chronyd never answered: \(String(describing: lastError))\n\(chrony.output)")
        // On a host with both cores busy, one query can find the clock chronyd serves a few
        // milliseconds off the shift with consistent timestamps (bounds of tens of microseconds): an
        // error in what chronyd served, which no client can tell from a shifted clock. So the shift is
        // the truth of the median of three queries, and each of them must still be within 25 ms of it.
        var results = [answered]
        for _ in 0..<2 { results.append(try await Self.query(port: port)) }
        let errors = results.map { ($0.wallClockOffset - .milliseconds(1500)).nanosecondsClamped }
        for (measured, error) in zip(results, errors) {
            print("chronyd under faketime +1.5s: offset \(measured.wallClockOffset), error vs 1.5 s \(Double(error) / 1e6) ms, bounds ±\(measured.error), delay \(measured.delay), stratum \(measured.stratum)")
            #expect(abs(error) < 25_000_000, "offset \(measured.wallClockOffset)")
            #expect(measured.stratum == 3)
        }
        let median = zip(results, errors).sorted { $0.1 < $1.1 }[1]
        #expect(abs(median.1) < 2_000_000, "median offset \(median.0.wallClockOffset)")
        #expect(median.0.bounds.contains(1_500_000_000) || abs(median.1) < 1_000_000)
    }

    static func query(port: Int) async throws -> NTPQueryResult {
        try await NTPClient(timeBase: SystemTimeBase()).query(host: "127.0.0.1", port: port, timeout: .milliseconds(250), samples: 4, interval: .milliseconds(50))
    }

    /// `chronyd -Q` against our server whose clock runs 0.75 s behind: chrony reports the shift.
    @Test(.enabled(if: Interop.shouldRun(["chronyd", "faketime"])), .timeLimit(.minutes(1)))
    func chronyMeasuresOurServer() async throws {
        let chronyd = try #require(Interop.chronyd, "chronyd is missing: run scripts/install-test-deps")
        let shift = Duration.milliseconds(-750)
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await withNTPServer(timeBase: ShiftedTimeBase(shift: shift)) { server, address in
            try await Self.chronyMeasures(
                port: address.port!, shift: shift.secondsValue, chronyd: chronyd, directory: directory,
                label: "our server shifted \(shift)")
            let statistics = try await server.statistics()
            #expect(statistics.replied >= 2, "\(statistics)")
        }
    }

    /// `chronyd -Q` against our server running in another process under `faketime -f -0.75s`: this
    /// test binary, re-executed to run ``ntpServeHelperUnderFaketime()`` only.
    @Test(.enabled(if: Interop.shouldRun(["chronyd", "faketime"])), .timeLimit(.minutes(1)))
    func chronyMeasuresOurServerUnderFaketime() async throws {
        let chronyd = try #require(Interop.chronyd, "chronyd is missing: run scripts/install-test-deps")
        let faketime = try #require(Interop.faketime, "faketime is missing: run scripts/install-test-deps")
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let portFile = "\(directory)/port"
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        // The faketime wrapper names a semaphore after its own PID; one left behind by a wrapper that
        // was killed makes it fail at once ("sem_open: File exists"). A new PID does not collide.
        var helper = try Self.startHelper(faketime: faketime, executable: executable, portFile: portFile, directory: directory)
        for _ in 0..<3 {
            try await Task.sleep(for: .milliseconds(300))
            guard helper.poll() != nil, helper.output.contains("sem_open") else { break }
            helper = try Self.startHelper(faketime: faketime, executable: executable, portFile: portFile, directory: directory)
        }
        defer {
            try? FileManager.default.removeItem(atPath: portFile)
            helper.stop()
        }
        var port: Int?
        let deadline = ContinuousClock.now + .seconds(30)
        while port == nil && helper.poll() == nil && ContinuousClock.now < deadline {
            port = (try? String(contentsOfFile: portFile, encoding: .utf8)).flatMap { Int($0) }
            if port == nil { try await Task.sleep(for: .milliseconds(50)) }
        }
        let serverPort = try #require(port, "the helper server did not start: \(helper.output)")
        try await Self.chronyMeasures(
            port: serverPort, shift: -0.75, chronyd: chronyd, directory: directory, label: "our server under faketime -0.75s")
    }

    /// Runs `chronyd -Q … maxsamples 4` against a server on loopback `port` and expects it to find the
    /// server's clock `shift` seconds off this machine's, within 2 ms.
    static func chronyMeasures(port: Int, shift: Double, chronyd: String, directory: String, label: String) async throws {
        let chrony = try ChildProcessGroup(
            chronyd, ["-Q", "-f", "/dev/null", "server 127.0.0.1 port \(port) iburst maxsamples 4"],
            outputPath: "\(directory)/chronyd.log")
        defer { chrony.stop() }
        let status = await chrony.wait(timeout: .seconds(30))
        let output = chrony.output
        #expect(status == 0, "\(output)")
        let wrong = try #require(systemClockWrongBy(output), "no 'System clock wrong by' in: \(output)")
        let error = wrong - shift
        print("chronyd -Q against \(label): System clock wrong by \(wrong) s, error \(error * 1e3) ms")
        #expect(abs(error) < 0.002, "\(output)")
    }

    static let helperVariable = "TIMESYNC_NTP_SERVE_HELPER"

    static func startHelper(faketime: String, executable: String, portFile: String, directory: String) throws -> ChildProcessGroup {
        try ChildProcessGroup(
            faketime, ["-f", "-0.75s", executable, "--testing-library", "swift-testing", "--filter", "ntpServeHelperUnderFaketime"],
            environment: ["FAKETIME_DONT_FAKE_MONOTONIC": "1", helperVariable: portFile],
            outputPath: "\(directory)/helper.log")
    }

    /// Not a test by itself: when ``chronyMeasuresOurServerUnderFaketime()`` re-executes this binary
    /// with `TIMESYNC_NTP_SERVE_HELPER` set, serves NTP from the (faked) system clock, writes the port
    /// to that file and serves until the file is removed.
    @Test(.enabled(if: ProcessInfo.processInfo.environment[helperVariable] != nil))
    func ntpServeHelperUnderFaketime() async throws {
        let portFile = try #require(ProcessInfo.processInfo.environment[Self.helperVariable])
        // This host's real kernel state: serve it at local stratum 1 should it be unsynchronized.
        let server = NTPServer(configuration: NTPServerConfiguration(host: "127.0.0.1", port: 0, localStratum: 1))
        let task = Task { try await server.run() }
        let address = try await server.localAddress()
        try "\(address.port!)".write(toFile: portFile + ".tmp", atomically: true, encoding: .utf8)
        try FileManager.default.moveItem(atPath: portFile + ".tmp", toPath: portFile)
        let deadline = ContinuousClock.now + .seconds(45)
        while FileManager.default.fileExists(atPath: portFile) && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        task.cancel()
        try await task.value
    }

    /// The value of chrony's "System clock wrong by X seconds".
    static func systemClockWrongBy(_ output: String) -> Double? {
        guard let range = output.range(of: "System clock wrong by ") else { return nil }
        let number = output[range.upperBound...].prefix { $0 == "-" || $0 == "+" || $0 == "." || $0.isNumber }
        return Double(number)
    }
}
#endif
