#if CLI
import Foundation
import Testing
import TimeSync
import TimeSyncTestSupport

/// NTPsec's `ntpdig` as a client of `timesync serve --ntp`, on both datagram paths. `ntpdig` asks
/// port 123 only, so each run gets a network namespace of its own (`unshare -n`): a private
/// loopback where port 123 is free, away from this machine's own time service. The server runs
/// under libfaketime 1.5 s ahead (its monotonic clock untouched); `ntpdig` must see that offset.
@Suite(.serialized) struct NtpdigInteropTests {
    static var available: Bool { Interop.shouldRun(["ntpdig", "unshare", "ip"]) && Interop.libfaketime() != nil || Interop.required }

    @Test(.enabled(if: available), arguments: ["batched", "swiftnio"])
    func ntpdigMeasuresOurServerOnEachPath(io: String) async throws {
        let timesync = try #require(Interop.timesyncBinary(), "build the timesync executable (swift build --traits CLI)")
        let ntpdig = try #require(Interop.find("ntpdig"), "ntpdig is missing: run scripts/install-test-deps")
        let unshare = try #require(Interop.find("unshare"), "unshare is missing (util-linux)")
        let ip = try #require(Interop.find("ip"), "ip is missing (iproute2)")
        let fake = try Interop.fakeTimeEnvironment("+1.5s").map { "\($0.key)=\($0.value)" }.sorted().joined(separator: " ")
        // The server is this script's child, stopped by its PID when the script ends however it ends.
        // It is exec'd by a shell that has libfaketime preloaded already: a Swift executable exec'd
        // with the preload added at that moment loses its arguments.
        let script = """
            set -u
            \(ip) link set lo up || exit 90
            \(fake) /bin/sh -c 'exec "$0" "$@"' \(timesync) serve --ntp 127.0.0.1:123 --local-stratum 3 --ntp-io \(io) --log-level warning &
            server=$!
            trap 'kill $server 2>/dev/null' EXIT INT TERM
            sleep 1
            \(ntpdig) -j -p 4 -t 2 127.0.0.1
            """
        let run = try await ChildProcess.run(unshare, ["-n", "/bin/sh", "-c", script], timeout: .seconds(30))
        #expect(run.status == 0, "ntpdig failed: \(run.stdout) \(run.stderr)")
        let line = try #require(run.stdout.split(separator: "\n").last { $0.hasPrefix("{") }, "no JSON from ntpdig: \(run.stdout) \(run.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let offset = try #require(report["offset"] as? Double)
        #expect(abs(offset - 1.5) < 0.005, "ntpdig saw \(offset) s, the server is 1.5 s ahead: \(line)")
        #expect(report["stratum"] as? Int == 3 && report["leap"] as? String == "no-leap", "\(line)")
    }
}
#endif
