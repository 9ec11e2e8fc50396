#if CLI
import Foundation
import Testing
import TimeSync
import TimeSyncTestSupport

/// A host with a /64 is one client to `timesync serve`'s rate limit, however many of its addresses it
/// sends from: real sockets in a network namespace of the test's own (`unshare -n`), where a local
/// route makes every address of 2001:db8:1::/64 this host's, and a Python client sends 32 SNTP
/// requests from each of 500 of them.
@Suite(.serialized) struct IPv6PrefixInteropTests {
    static var available: Bool { Interop.shouldRun(["unshare", "ip", "python3"]) || Interop.required }

    /// Sends 32 requests from each of 500 addresses of one /64 and counts the replies that carry
    /// the time (a Kiss-o'-Death has stratum 0 and does not).
    static let client = """
        import select, socket, struct, sys, time
        port = int(sys.argv[1])
        request = bytes([0x23]) + bytes(47)
        sockets = []
        for host in range(1, 501):
            s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
            s.bind((f"2001:db8:1::{host:x}", 0))
            s.setblocking(False)
            sockets.append(s)
        answered = kissed = 0
        def drain(wait):
            global answered, kissed
            end = time.monotonic() + wait
            while True:
                left = end - time.monotonic()
                if left <= 0: return
                ready, _, _ = select.select(sockets, [], [], left)
                if not ready: return
                for s in ready:
                    try:
                        while True:
                            data = s.recv(512)
                            if len(data) >= 48:
                                if data[1] == 0: kissed += 1
                                else: answered += 1
                    except BlockingIOError:
                        pass
        for _ in range(32):
            for s in sockets: s.sendto(request, ("::1", port))
            drain(0.01)
        drain(1.0)
        print(answered, kissed)
        """

    /// The replies to 16,000 requests from 500 addresses of one /64, with `--ipv6-client-prefix`.
    func answered(prefix: Int) async throws -> (answered: Int, kissed: Int) {
        let timesync = try #require(Interop.timesyncBinary(), "build the timesync executable (swift build --traits CLI)")
        let unshare = try #require(Interop.find("unshare"), "unshare is missing (util-linux)")
        let ip = try #require(Interop.find("ip"), "ip is missing (iproute2)")
        let python = try #require(Interop.find("python3"), "python3 is missing")
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Self.client.write(toFile: "\(directory)/client.py", atomically: true, encoding: .utf8)
        // The server is this script's child, stopped by its PID when the script ends however it ends.
        let script = """
            set -u
            \(ip) link set lo up || exit 90
            \(ip) -6 route add local 2001:db8:1::/64 dev lo || exit 91
            echo 1 > /proc/sys/net/ipv6/ip_nonlocal_bind || exit 92
            \(timesync) serve --ntp '[::1]:12300' --local-stratum 3 --ipv6-client-prefix \(prefix) --log-level warning &
            server=$!
            trap 'kill $server 2>/dev/null' EXIT INT TERM
            sleep 1
            \(python) \(directory)/client.py 12300
            """
        let run = try await ChildProcess.run(unshare, ["-n", "/bin/sh", "-c", script], timeout: .seconds(60))
        #expect(run.status == 0, "\(run.stdout) \(run.stderr)")
        let numbers = run.stdout.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        let counts = try #require(numbers.count == 2 ? (numbers[0], numbers[1]) : nil, "no counts from the client: \(run.stdout) \(run.stderr)")
        return counts
    }

    @Test(.enabled(if: available), .timeLimit(.minutes(2)))
    func fiveHundredAddressesOfOneSlash64AreOneClient() async throws {
        let one = try await answered(prefix: 64)
        let each = try await answered(prefix: 128)
        print("SNTP, 16000 requests from 500 addresses of one /64 (rate 1/s, burst 8): /64 as one client: \(one.answered) answered, \(one.kissed) kissed; each address a client (--ipv6-client-prefix 128): \(each.answered) answered, \(each.kissed) kissed")
        // One client: its burst of 8 and a token a second over the run's few seconds.
        #expect(one.answered <= 30, "\(one)")
        #expect(one.answered >= 8, "\(one)")
        // Each address its own client: 500 bursts.
        #expect(each.answered >= 3_000, "\(each)")
    }
}
#endif
