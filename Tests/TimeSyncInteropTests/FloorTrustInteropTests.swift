#if CLI
import Foundation
import Testing
import TimeSync
import TimeSyncTestSupport

/// The floor kept across reboots, against real `chronyd` servers and the real `timesync watch`: one
/// wrong synchronization does not outlive the next right one, and a store from another monotonic
/// epoch (a time namespace, which shares the host's boot ID) does not pass as this boot's.
@Suite(.serialized) struct FloorTrustInteropTests {
    typealias Fleet = WatchInteropTests.ChronydFleet

    /// A server a day ahead synchronizes the watch once; after a reboot an honest server lowers the
    /// floor (said on stderr), and after the next reboot, offline, a deadline an hour away has not
    /// certainly passed.
    @Test(.enabled(if: Interop.shouldRun(["chronyd", "faketime"])), .timeLimit(.minutes(2)))
    func aFloorALiarRaisedIsLoweredByTheHonestServer() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = "\(directory)/calibration.json"
        func boot(_ name: String) -> [String: String] { ["XDG_DATA_HOME": directory, "TIMESYNC_BOOT_SESSION_ID": "\(name)-\(UUID().uuidString)"] }
        let liar = try await Fleet(shifts: [86_400])
        let lied = try await WatchInteropTests.watch(liar.urls + ["--duration", "2", "--timeout", "0.5", "--store", store], environment: boot("one"))
        liar.stop()
        #expect(lied.updates.last?.status == "synchronized", "\(lied.stderr)")
        #expect((lied.updates.last?.offset ?? 0) > 86_399, "the liar's day")
        #expect(lied.stderr.contains("TIMESYNC_BOOT_SESSION_ID replaces this system's boot session"), "each use is said: \(lied.stderr)")

        let honest = try await Fleet(shifts: [0])
        let second = boot("two")
        let corrected = try await WatchInteropTests.watch(honest.urls + ["--duration", "2", "--timeout", "0.5", "--store", store], environment: second)
        honest.stop()
        #expect(corrected.updates.first?.status == "floorOnly", "the liar's floor, until the honest server answers")
        #expect(corrected.updates.last?.status == "synchronized", "\(corrected.stderr)")
        #expect(abs(corrected.updates.last?.offset ?? 1) < 0.01)
        #expect(corrected.stderr.contains("floor") && corrected.stderr.contains("lowered by"), "\(corrected.stderr)")

        let hourAway = String(format: "%.3f", Date().timeIntervalSince1970 + 3600)
        let offline = try await WatchInteropTests.watch(
            honest.urls + ["--duration", "1", "--timeout", "0.3", "--store", store, "--deadline", hourAway], environment: boot("three"))
        let first = try #require(offline.updates.first, "no line offline: \(offline.stderr)")
        print("after the liar and the honest server, offline: \(first.status) floor \(first.floor ?? "-") deadline in an hour certainlyPassed \(first.deadline?.certainlyPassed ?? true)")
        #expect(first.status == "floorOnly")
        #expect(first.deadline?.certainlyPassed == false, "an hour from now has not certainly passed")
    }

    /// A store saved on the host, read in a time namespace whose monotonic and boot-time clocks run
    /// 100,000 s ahead (the boot ID is the host's): not restored, and its floor not counted on by
    /// 100,000 s — a deadline a day away has not certainly passed.
    @Test(.enabled(if: Interop.shouldRun(["chronyd", "unshare"])), .timeLimit(.minutes(2)))
    func aStoreFromOutsideATimeNamespaceIsNotThisBootsStore() async throws {
        let binary = try #require(Interop.timesyncBinary(), "build the timesync executable first")
        let unshare = try #require(Interop.find("unshare"))
        let probe = try await ChildProcess.run(unshare, ["-T", "--monotonic", "100000", "--boottime", "100000", "true"], timeout: .seconds(10))
        try #require(probe.status == 0, "time namespaces are not available here (root and a kernel with CONFIG_TIME_NS): \(probe.stderr)")
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = "\(directory)/calibration.json"
        let fleet = try await Fleet(shifts: [0])
        let online = try await WatchInteropTests.watch(
            fleet.urls + ["--duration", "2", "--timeout", "0.5", "--store", store], environment: ["XDG_DATA_HOME": directory])
        fleet.stop()
        #expect(online.updates.last?.status == "synchronized", "\(online.stderr)")
        let dayAway = String(format: "%.3f", Date().timeIntervalSince1970 + 86_400)
        let inside = try await ChildProcess.run(
            unshare,
            ["-T", "--monotonic", "100000", "--boottime", "100000", binary, "watch", "--json"] + fleet.urls
                + ["--duration", "1", "--timeout", "0.3", "--store", store, "--deadline", dayAway],
            environment: ["XDG_DATA_HOME": directory], timeout: .seconds(30))
        let updates = try inside.stdout.split(separator: "\n").filter { !$0.contains("\"event\"") }
            .map { try JSONDecoder().decode(WatchInteropTests.Update.self, from: Data($0.utf8)) }
        let first = try #require(updates.first, "no line in the namespace: \(inside.stderr)")
        print("in a time namespace 100000 s ahead: \(first.status) restored \(first.restored ?? false) deadline a day away certainlyPassed \(first.deadline?.certainlyPassed ?? true)")
        #expect(first.restored != true, "the host's calibration is not this namespace's")
        #expect(first.status == "floorOnly")
        #expect(first.deadline?.certainlyPassed == false, "a day from now has not certainly passed")
        #expect(inside.stderr.contains("its floor is kept"), "\(inside.stderr)")
    }
}
#endif
