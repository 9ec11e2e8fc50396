#if CLI
import Foundation
import Testing
import TimeSync
import TimeSyncNTP
import TimeSyncNTPServer
import TimeSyncTestSupport

/// `timesync watch` against real chronyd servers on loopback, some shifted by libfaketime.
@Suite(.serialized) struct WatchInteropTests {
    /// chronyd servers on loopback, each at a shift (seconds; 0 serves this machine's clock).
    final class ChronydFleet {
        let directory: String
        var ports: [Int] = []
        private var processes: [ChildProcessGroup] = []

        init(shifts: [Double]) async throws {
            let chronyd = try #require(Interop.chronyd, "chronyd is missing: run scripts/install-test-deps")
            #expect(Interop.libfaketime() != nil, "libfaketime is missing: run scripts/install-test-deps")
            directory = try makeTemporaryDirectory()
            for (index, shift) in shifts.enumerated() {
                let serverDirectory = "\(directory)/\(index)"
                try FileManager.default.createDirectory(atPath: serverDirectory, withIntermediateDirectories: true)
                let port = try await freeUDPPort()
                try writeChronyConfiguration(port: port, directory: serverDirectory)
                let arguments = [chronyd, "-U", "-x", "-d", "-f", "\(serverDirectory)/chrony.conf"]
                let process = shift == 0
                    ? try ChildProcessGroup(chronyd, Array(arguments.dropFirst()), outputPath: "\(serverDirectory)/chronyd.log")
                    : try ChildProcessGroup(
                        chronyd, Array(arguments.dropFirst()),
                        environment: try Interop.fakeTimeEnvironment(String(format: "%+.3fs", shift)), outputPath: "\(serverDirectory)/chronyd.log")
                processes.append(process)
                ports.append(port)
            }
            // Each answers before the watch starts (chronyd needs a moment to bind).
            for port in ports {
                var answered = false
                for _ in 0..<50 where !answered {
                    answered = (try? await NTPClient(timeBase: SystemTimeBase()).query(host: "127.0.0.1", port: port, timeout: .milliseconds(200))) != nil
                    if !answered { try await Task.sleep(for: .milliseconds(100)) }
                }
                #expect(answered, "chronyd on port \(port) never answered")
            }
        }

        var urls: [String] { ports.map { "ntp://127.0.0.1:\($0)" } }

        func stop() {
            for (index, process) in processes.enumerated() {
                if let pid = try? String(contentsOfFile: "\(directory)/\(index)/chronyd.pid", encoding: .utf8),
                    let number = Int32(pid.trimmingCharacters(in: .whitespacesAndNewlines)), number > 1
                {
                    kill(number, SIGKILL)
                }
                process.stop()
            }
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    struct Update: Decodable {
        var time: String
        var status: String
        var offset: Double?
        var error: Double?
        var restored: Bool?
        var floor: String?
        var deadline: Deadline?
        var deviceClock: DeviceClock?
        var sources: [Source]
        struct Deadline: Decodable {
            var time: String
            var certainlyPassed: Bool
        }
        struct DeviceClock: Decodable {
            var check: String
            var by: Double?
        }
        struct Source: Decodable {
            var source: String
            var state: String
            var offset: Double?
        }
    }

    static func watch(_ arguments: [String], environment: [String: String] = [:], timeout: Duration = .seconds(60)) async throws -> (
        status: Int32, updates: [Update], stderr: String
    ) {
        let binary = try #require(Interop.timesyncBinary(), "build the timesync executable first")
        let run = try await ChildProcess.run(binary, ["watch", "--json"] + arguments, environment: environment, timeout: timeout)
        // Status lines only: failed polls come as {"event": …} lines.
        let updates = try run.stdout.split(separator: "\n").filter { !$0.contains("\"event\"") }
            .map { try JSONDecoder().decode(Update.self, from: Data($0.utf8)) }
        return (run.status, updates, run.stderr)
    }

    @Test(.enabled(if: Interop.shouldRun(["chronyd", "faketime"])), .timeLimit(.minutes(2)))
    func fiveServersTwoShiftedAreNamedFalsetickersAndTheClockStaysWithinTwoMilliseconds() async throws {
        let fleet = try await ChronydFleet(shifts: [0, 0, 0, 3, -5])
        defer { fleet.stop() }
        let started = ContinuousClock.now
        let startedWall = Date()
        let result = try await Self.watch(fleet.urls + ["--duration", "8", "--timeout", "0.5"])
        let elapsed = ContinuousClock.now - started
        // Time from launching the command to its first provisional and first synchronized line.
        let parser = ISO8601DateFormatter()
        parser.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        func firstTime(_ status: String) -> Double? {
            result.updates.first { $0.status == status }.flatMap { parser.date(from: $0.time) }.map { $0.timeIntervalSince(startedWall) }
        }
        print(String(format: "watch, 5 chronyd: first provisional after %.3f s, first synchronized after %.3f s (from launching the command)", firstTime("provisional") ?? .nan, firstTime("synchronized") ?? .nan))
        #expect(result.status == 0, "\(result.stderr)")
        let last = try #require(result.updates.last, "no update: \(result.stderr)")
        print("watch, 5 chronyd (two shifted +3 s and -5 s): \(result.updates.count) updates in \(elapsed), last \(last.status) offset \(last.offset ?? .nan) s ± \(last.error ?? .nan) s; " + last.sources.map { "\($0.source) \($0.state)" }.joined(separator: ", "))
        #expect(last.status == "synchronized")
        let states = last.sources.map(\.state)
        #expect(states == ["selected", "selected", "selected", "falseticker", "falseticker"], "\(states)")
        #expect(abs(try #require(last.offset)) < 0.002, "offset \(String(describing: last.offset))")
        #expect(abs((last.sources[3].offset ?? 0) - 3) < 0.01 && abs((last.sources[4].offset ?? 0) + 5) < 0.01)
        // Never synchronized on fewer than three agreeing servers.
        let firstSynchronized = result.updates.firstIndex { $0.status == "synchronized" }
        let statuses = result.updates.map(\.status)
        #expect(firstSynchronized.map { result.updates[$0].sources.filter { $0.state == "selected" }.count >= 3 } ?? false, "\(statuses)")
        // While the first replies come in, two agreeing of four heard is honestly no majority; the
        // last word is the majority's.
    }

    @Test(.enabled(if: Interop.shouldRun(["chronyd", "faketime"])), .timeLimit(.minutes(2)))
    func twoTwoOneServersHaveNoMajority() async throws {
        let fleet = try await ChronydFleet(shifts: [0, 0, 3, 3, -5])
        defer { fleet.stop() }
        let result = try await Self.watch(fleet.urls + ["--duration", "6", "--timeout", "0.5"])
        #expect(result.status == 0, "\(result.stderr)")
        let statuses = result.updates.map(\.status)
        print("watch, 2+2+1 chronyd: \(statuses)")
        #expect(statuses.last == "noMajority", "\(statuses)")
        #expect(!statuses.contains("synchronized"), "\(statuses)")
    }

    @Test(.enabled(if: Interop.shouldRun(["chronyd", "faketime"])), .timeLimit(.minutes(2)))
    func anOfflineRestartWithAStoreStartsFromTheStoredCalibration() async throws {
        let fleet = try await ChronydFleet(shifts: [0, 0, 0])
        defer { fleet.stop() }
        let storeDirectory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: storeDirectory) }
        let store = "\(storeDirectory)/calibration.json"
        // The store's key lives beside it, in a data directory of the test's own.
        let dataHome = ["XDG_DATA_HOME": storeDirectory]
        let online = try await Self.watch(fleet.urls + ["--duration", "4", "--timeout", "0.5", "--store", store], environment: dataHome)
        #expect(online.updates.last?.status == "synchronized", "\(online.stderr)")
        #expect(FileManager.default.fileExists(atPath: store))
        fleet.stop()
        // Offline: the same servers, gone. The first line is the stored calibration.
        let offline = try await Self.watch(fleet.urls + ["--duration", "2", "--timeout", "0.3", "--store", store], environment: dataHome)
        // Nothing answered: exit 1, after the restored line.
        #expect(offline.status == 1, "\(offline.stderr)")
        let first = try #require(offline.updates.first, "no update when offline: \(offline.stderr) \((try? String(contentsOfFile: store, encoding: .utf8))?.prefix(300) ?? "")")
        print("watch offline restart: \(first.status) restored \(first.restored ?? false) offset \(first.offset ?? .nan) ± \(first.error ?? .nan)")
        #expect(first.restored == true && first.status == "synchronized")
        #expect(abs(try #require(first.offset)) < 0.005)
        // A store edited by hand is ignored with a warning on stderr, and the watch still runs.
        var edited = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: store))) as? [String: Any])
        edited["tag"] = Data(repeating: 0, count: 32).base64EncodedString()
        try JSONSerialization.data(withJSONObject: edited).write(to: URL(fileURLWithPath: store))
        let corrupt = try await Self.watch(fleet.urls + ["--duration", "1", "--timeout", "0.3", "--store", store], environment: dataHome)
        #expect(corrupt.status == 1)
        #expect(corrupt.stderr.contains("stored calibration ignored"), "\(corrupt.stderr)")
        #expect(corrupt.updates.isEmpty || corrupt.updates.allSatisfy { $0.restored != true })
    }

    /// After a reboot (another boot session, given to `watch` through `TIMESYNC_BOOT_SESSION_ID`) the
    /// stored calibration means nothing, but its floor does: offline, the first line reports it, a
    /// moment before it as certainly passed and one after it as not.
    @Test(.enabled(if: Interop.shouldRun(["chronyd"])), .timeLimit(.minutes(2)))
    func anOfflineStartAfterARebootReportsTheFloor() async throws {
        let fleet = try await ChronydFleet(shifts: [0])
        defer { fleet.stop() }
        let storeDirectory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: storeDirectory) }
        let store = "\(storeDirectory)/calibration.json"
        // The store's key lives beside it, in a data directory of the test's own.
        let before = ["XDG_DATA_HOME": storeDirectory, "TIMESYNC_BOOT_SESSION_ID": "boot-before-\(UUID().uuidString)"]
        let online = try await Self.watch(fleet.urls + ["--duration", "3", "--timeout", "0.5", "--store", store], environment: before)
        #expect(online.updates.last?.status == "synchronized", "\(online.stderr)")
        fleet.stop()
        let wall = Date().timeIntervalSince1970
        let after = ["XDG_DATA_HOME": storeDirectory, "TIMESYNC_BOOT_SESSION_ID": "boot-after-\(UUID().uuidString)"]
        let past = String(format: "%.3f", wall - 60)
        let offline = try await Self.watch(
            fleet.urls + ["--duration", "1", "--timeout", "0.3", "--store", store, "--deadline", past], environment: after)
        #expect(offline.status == 1, "nothing answered: \(offline.stderr)")
        #expect(offline.stderr.contains("another boot session") && offline.stderr.contains("its floor is kept"), "\(offline.stderr)")
        let first = try #require(offline.updates.first, "no line offline after the reboot: \(offline.stderr)")
        print("watch after a reboot: \(first.status) floor \(first.floor ?? "-") deadline \(first.deadline.map { "\($0.time) \($0.certainlyPassed)" } ?? "-")")
        #expect(first.status == "floorOnly" && first.floor != nil && first.offset == nil)
        #expect(first.deadline?.certainlyPassed == true, "a minute before the floor has certainly passed")
        // A moment after the floor (an hour ahead) is not certain.
        let future = String(format: "%.3f", wall + 3600)
        let later = try await Self.watch(
            fleet.urls + ["--duration", "1", "--timeout", "0.3", "--store", store, "--deadline", future], environment: after)
        #expect(later.updates.first?.status == "floorOnly")
        #expect(later.updates.first?.deadline?.certainlyPassed == false)
    }

    /// `--store` at a file that is not a store (a mistyped path), a FIFO, a directory or a symbolic
    /// link: a usage error at once, naming the path and why, and the thing at the path is left as it
    /// was (a FIFO does not hang the command).
    @Test func aStorePathThatIsNotAStoreIsRefusedAndLeftAsItIs() async throws {
        let binary = try #require(Interop.timesyncBinary(), "build the timesync executable first")
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let notes = "\(directory)/notes.txt"
        let text = Data(String(repeating: "my notes\n", count: 65_000).utf8)
        try text.write(to: URL(fileURLWithPath: notes))
        let fifo = "\(directory)/fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        let link = "\(directory)/link"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: notes)
        for (path, says) in [
            (notes, "is a file of \(text.count) bytes that is not a TimeSync calibration store"), (fifo, "is a FIFO"),
            (directory, "is a directory"), (link, "is a symbolic link"),
        ] {
            let run = try await ChildProcess.run(
                binary, ["watch", "ntp://127.0.0.1:9", "--duration", "2", "--store", path], timeout: .seconds(20))
            #expect(run.status == 64, "\(path): \(run)")
            #expect(run.stderr.contains("--store: \(path) \(says)"), "\(path): \(run.stderr)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: notes)) == text)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == notes)
    }

    /// A store as a forger writes it, in the format stores had before they were sealed: `sources`
    /// a day ahead of this machine, four tight samples each, in this boot session.
    static func forgedStore(sources: [String]) throws -> Data {
        let base = SystemTimeBase()
        let now = base.monotonicNow()
        let theta = base.wallNow().nanoseconds - now.nanoseconds + 86_400 * 1_000_000_000
        var samples: [[String: Any]] = []
        for source in sources {
            for step in 0..<4 {
                let t = now.nanoseconds - Int64(64 * (3 - step) + 1) * 1_000_000_000
                samples.append([
                    "source": source, "offset": ["lower": theta - 1_000_000, "upper": theta + 1_000_000],
                    "time": ["nanoseconds": t], "span": 2_000_000, "delay": 2_000_000,
                ])
            }
        }
        let object: [String: Any] = [
            "version": 1, "bootSessionID": try #require(base.bootSessionID), "savedAt": ["nanoseconds": now.nanoseconds - 1_000_000_000],
            "strategy": "intersection", "samples": samples,
        ]
        return try JSONSerialization.data(withJSONObject: object)
    }

    /// A forged store never outvotes live servers, nor stands for them offline: four invented
    /// sources, or the real ones shifted a day, against three honest chronyd.
    @Test(.enabled(if: Interop.shouldRun(["chronyd", "faketime"])), .timeLimit(.minutes(2)))
    func aForgedStoreNeverOutvotesLiveServers() async throws {
        let fleet = try await ChronydFleet(shifts: [0, 0, 0])
        defer { fleet.stop() }
        let storeDirectory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: storeDirectory) }
        let store = "\(storeDirectory)/calibration.json"
        let dataHome = ["XDG_DATA_HOME": storeDirectory]
        let real = fleet.ports.map { "127.0.0.1:\($0)" }
        for (name, sources) in [("invented", ["x1:123", "x2:123", "x3:123", "x4:123"]), ("real, shifted", real)] {
            try Self.forgedStore(sources: sources).write(to: URL(fileURLWithPath: store))
            let result = try await Self.watch(fleet.urls + ["--duration", "5", "--timeout", "0.5", "--store", store], environment: dataHome)
            let last = try #require(result.updates.last, "\(name): no update: \(result.stderr)")
            print("watch with a forged store (\(name)) against 3 chronyd: \(result.updates.map(\.status)), last offset \(last.offset ?? .nan)")
            #expect(result.stderr.contains("stored calibration ignored"), "\(name): \(result.stderr)")
            for update in result.updates {
                #expect(abs(update.offset ?? 0) < 0.01, "\(name): \(update.status) \(update.offset ?? .nan)")
                #expect(update.restored != true, "\(name)")
                #expect(!update.sources.contains { $0.state == "falseticker" }, "\(name): \(update.sources.map(\.state))")
            }
            #expect(last.status == "synchronized", "\(name)")
        }
        // Offline, the forged store stands for nothing.
        fleet.stop()
        try Self.forgedStore(sources: real).write(to: URL(fileURLWithPath: store))
        let offline = try await Self.watch(fleet.urls + ["--duration", "2", "--timeout", "0.3", "--store", store], environment: dataHome)
        #expect(offline.updates.allSatisfy { $0.status == "unsynchronized" || abs($0.offset ?? 0) < 0.01 }, "\(offline.updates.map(\.status))")
        #expect(offline.updates.isEmpty, "\(offline.updates.map(\.status))")
    }

    @Test(.enabled(if: Interop.shouldRun(["chronyd", "faketime"])), .timeLimit(.minutes(1)))
    func sigtermStopsTheWatchWithStatusZero() async throws {
        let fleet = try await ChronydFleet(shifts: [0])
        defer { fleet.stop() }
        let binary = try #require(Interop.timesyncBinary(), "build the timesync executable first")
        for signal in [SIGTERM, SIGINT] {
            let child = try ChildProcess(binary, ["watch", "--json", "--timeout", "0.5"] + fleet.urls)
            defer { child.stop() }
            #expect(try await child.wait(timeout: .seconds(20)) { child.stdout.contains("\"status\"") }, "no update: \(child.stderr)")
            kill(child.process.processIdentifier, signal)
            _ = try await child.wait(timeout: .seconds(10)) { !child.process.isRunning }
            #expect(!child.process.isRunning)
            #expect(child.process.terminationStatus == 0, "signal \(signal): \(child.stderr)")
        }
    }
}
#endif
