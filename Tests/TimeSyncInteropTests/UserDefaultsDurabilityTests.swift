#if CLI
import Foundation
import Testing
import TimeSync
import TimeSyncTestSupport

/// The built `store-writer` executable (`Tests/Support/store-writer`) next to the test binary or
/// in the scratch path's debug folder, or `TIMESYNC_STORE_WRITER`.
private func storeWriter() -> String? {
    if let explicit = ProcessInfo.processInfo.environment["TIMESYNC_STORE_WRITER"] { return explicit }
    let testBinary = URL(fileURLWithPath: CommandLine.arguments.first ?? "")
    var candidates = [testBinary.deletingLastPathComponent().appendingPathComponent("store-writer").path]
    for scratch in [".build-http", ".build"] {
        candidates.append(Interop.packageRoot.appendingPathComponent("\(scratch)/debug/store-writer").path)
    }
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
}

/// A calibration saved through `UserDefaultsCalibrationStore` is on disk when the save returns: a
/// process killed right after it (SIGKILL: no exit handlers, nothing flushed) leaves it for the next
/// launch. Both processes run `store-writer` with their home and configuration directories in a
/// temporary directory, so the machine's own preferences are never touched.
@Suite(.serialized, .enabled(if: storeWriter() != nil || Interop.required))
struct UserDefaultsDurabilityTests {
    /// A home directory of the test's own (removed by the caller), the environment that puts the
    /// process's preferences and data there, a suite name no other run uses and a key path in it.
    static func privateSuite() throws -> (home: String, environment: [String: String], suite: String, key: String) {
        let home = try makeTemporaryDirectory()
        let environment = [
            "HOME": home, "XDG_CONFIG_HOME": "\(home)/.config", "XDG_DATA_HOME": "\(home)/.local/share",
            "CFFIXED_USER_HOME": home,
        ]
        return (home, environment, "TimeSyncInteropTests.\(UUID().uuidString)", "\(home)/keys/calibration.key")
    }

    @Test func aSavedCalibrationSurvivesAProcessKilledRightAfterTheSave() async throws {
        let writer = try #require(storeWriter(), "build the store-writer executable first")
        let (home, environment, suite, key) = try Self.privateSuite()
        defer { try? FileManager.default.removeItem(atPath: home) }

        let saving = try ChildProcess(writer, ["save", "--suite", suite, "--key", key, "--offset-ms", "42000"], environment: environment)
        defer { saving.stop() }
        let saved = try await saving.wait(timeout: .seconds(30)) { saving.stdout.contains("saved") }
        #expect(saved, "store-writer did not save: \(saving.stderr)")
        let pid = saving.process.processIdentifier
        #expect(saving.process.isRunning)
        #expect(kill(pid, SIGKILL) == 0)
        saving.process.waitUntilExit()
        #expect(saving.process.terminationReason == .uncaughtSignal)
        #expect(saving.process.terminationStatus == SIGKILL)

        let restoring = try await ChildProcess.run(writer, ["restore", "--suite", suite, "--key", key], environment: environment)
        #expect(restoring.status == 0, "\(restoring.stderr)")
        let words = restoring.stdout.split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        #expect(words.first == "restored", "the killed process's save was lost: \(restoring.stdout) \(restoring.stderr)")
        #expect(words.dropFirst().first == "synchronized")
        let offset = try #require(words.count == 3 ? Int(words[2]) : nil, "\(restoring.stdout)")
        #expect(abs(offset - 42_000) <= 1_000, "restored offset \(offset) ms, saved 42000 ms")
    }

    /// Where the system refuses its boot session identifier (here Linux's boot ID, masked in a mount
    /// namespace of the test's own), the boot time tells boot sessions apart: a saved calibration is
    /// still restored by the next launch, and each launch warns that the boot time is in use.
    @Test(.enabled(if: Interop.shouldRun(["unshare"]) && geteuid() == 0), .timeLimit(.minutes(1)))
    func theBootTimeTellsBootsApartWhereTheBootIDIsRefused() async throws {
        let writer = try #require(storeWriter(), "build the store-writer executable first")
        let unshare = try #require(Interop.find("unshare"))
        let (home, environment, suite, key) = try Self.privateSuite()
        defer { try? FileManager.default.removeItem(atPath: home) }
        // A private mount namespace (unshare's default propagation): /dev/null over the boot ID, then
        // the writer, in the same process.
        func masked(_ arguments: [String]) -> [String] {
            ["-m", "sh", "-c", "mount --bind /dev/null /proc/sys/kernel/random/boot_id && exec \"$@\"", "sh", writer] + arguments
        }
        let probe = try await ChildProcess.run(unshare, ["-m", "sh", "-c", "mount --bind /dev/null /proc/sys/kernel/random/boot_id && cat /proc/sys/kernel/random/boot_id | wc -c"], timeout: .seconds(10))
        try #require(probe.status == 0 && probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "0", "cannot mask the boot ID here: \(probe.stdout) \(probe.stderr)")

        let saving = try ChildProcess(unshare, masked(["save", "--suite", suite, "--key", key, "--offset-ms", "42000"]), environment: environment)
        defer { saving.stop() }
        let saved = try await saving.wait(timeout: .seconds(30)) { saving.stdout.contains("saved") }
        #expect(saved, "store-writer did not save: \(saving.stderr)")
        #expect(saving.stderr.contains("boot time"), "no warning that the boot time stands in for the boot ID: \(saving.stderr)")
        saving.stop()

        let restoring = try await ChildProcess.run(unshare, masked(["restore", "--suite", suite, "--key", key]), environment: environment)
        #expect(restoring.status == 0, "\(restoring.stderr)")
        let words = restoring.stdout.split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        #expect(words.first == "restored", "the boot time did not carry the store across launches: \(restoring.stdout) \(restoring.stderr)")
        #expect(words.dropFirst().first == "synchronized")
        #expect(restoring.stderr.contains("boot time"), "\(restoring.stderr)")

        // Without the mask, the boot ID is this boot's other name: the store is taken for another
        // boot's (its floor kept), never for this one under a wrong identity.
        let unmasked = try await ChildProcess.run(writer, ["restore", "--suite", suite, "--key", key], environment: environment)
        #expect(!unmasked.stdout.hasPrefix("restored synchronized"), "\(unmasked.stdout) \(unmasked.stderr)")
        #expect(!unmasked.stderr.contains("boot time"), "\(unmasked.stderr)")
    }

    /// An app and its extension in one app group: two processes, each with a home of its own (its
    /// container), sharing one suite (the group's). With each process's own key, each rejects what the
    /// other saved (the store does not verify); with one key in the group, each restores the other's
    /// calibration. On Apple platforms the shared key is `SystemCalibrationKeyProvider(accessGroup:)`.
    @Test func twoProcessesSharingASuiteAndAKeyEachRestoreTheOthersCalibration() async throws {
        let writer = try #require(storeWriter(), "build the store-writer executable first")
        let group = try makeTemporaryDirectory()
        let app = try makeTemporaryDirectory()
        let extensionHome = try makeTemporaryDirectory()
        defer { for directory in [group, app, extensionHome] { try? FileManager.default.removeItem(atPath: directory) } }
        // The suite lives in the group's configuration directory; each process's data (its default
        // key file) in its own home.
        func environment(_ home: String) -> [String: String] {
            ["HOME": home, "XDG_CONFIG_HOME": "\(group)/.config", "XDG_DATA_HOME": "\(home)/.local/share", "CFFIXED_USER_HOME": home]
        }
        let suite = "TimeSyncInteropTests.\(UUID().uuidString)"
        func run(_ home: String, _ arguments: [String]) async throws -> (words: [String], stderr: String) {
            let result = try await ChildProcess.run(writer, arguments, environment: environment(home), timeout: .seconds(30))
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            return (result.stdout.split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }, result.stderr)
        }
        func offset(_ words: [String]) -> Int? { words.count == 3 && words[0] == "restored" ? Int(words[2]) : nil }

        // Each process's own key: the extension cannot read what the app saved.
        _ = try await run(app, ["save", "--suite", suite, "--key", "default", "--offset-ms", "42000", "--exit"])
        let rejected = try await run(extensionHome, ["restore", "--suite", suite, "--key", "default"])
        #expect(rejected.words == ["empty"], "a store sealed with another process's key was restored: \(rejected)")

        // One key in the group: each restores what the other saved.
        let shared = "\(group)/keys/calibration.key"
        _ = try await run(app, ["save", "--suite", suite, "--key", shared, "--offset-ms", "42000", "--exit"])
        let byExtension = try await run(extensionHome, ["restore", "--suite", suite, "--key", shared])
        let first = try #require(offset(byExtension.words), "the extension did not restore the app's calibration: \(byExtension)")
        #expect(abs(first - 42_000) <= 1_000)
        _ = try await run(extensionHome, ["save", "--suite", suite, "--key", shared, "--offset-ms", "-7000", "--exit"])
        let byApp = try await run(app, ["restore", "--suite", suite, "--key", shared])
        let second = try #require(offset(byApp.words), "the app did not restore the extension's calibration: \(byApp)")
        #expect(abs(second + 7_000) <= 1_000)
    }
}
#endif
