#if CLI
import Foundation
import Testing
import TimeSync
import TimeSyncNTP
import TimeSyncNTPServer
import TimeSyncTestSupport

/// `timesync query` against a fresh `timesync serve --ntp` with its default rate limit (one request a
/// second per client, bursts of eight): eight samples pass untouched; twenty meet a `RATE` kiss, wait
/// the interval it asks for, and finish.
@Suite(.serialized) struct PoliteClientTests {
    static func server() async throws -> (ChildProcess, Int) {
        let binary = try #require(Interop.timesyncBinary(), "build the timesync executable first")
        let port = try await freeUDPPort()
        let server = try ChildProcess(binary, ["serve", "--ntp", "127.0.0.1:\(port)", "--local-stratum", "3"])
        var answered = false
        for _ in 0..<50 where !answered {
            answered = (try? await NTPClient(timeBase: SystemTimeBase()).exchange(
                with: try SocketAddress(ipAddress: "127.0.0.1", port: port), timeout: .milliseconds(200))) != nil
            if !answered { try await Task.sleep(for: .milliseconds(100)) }
        }
        try #require(answered, "timesync serve never answered: \(server.stderr)")
        // That probe took a token: wait for the bucket to refill before measuring.
        try await Task.sleep(for: .seconds(2))
        return (server, port)
    }

    @Test(.enabled(if: Interop.timesyncBinary() != nil), .timeLimit(.minutes(1)), arguments: [8, 20])
    func aQueryKeepsTheRateTheServerAsksFor(_ samples: Int) async throws {
        let binary = try #require(Interop.timesyncBinary())
        let (server, port) = try await Self.server()
        defer { server.stop() }
        let started = ContinuousClock.now
        let run = try await ChildProcess.run(
            binary, ["query", "ntp://127.0.0.1:\(port)", "--samples", "\(samples)", "--json"], timeout: .seconds(50))
        let elapsed = ContinuousClock.now - started
        print("query --samples \(samples) against timesync serve's default limit: exit \(run.status) in \(elapsed): \(run.stdout.prefix(200))")
        #expect(run.status == 0, "\(run.stdout) \(run.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        #expect(report["samples"] as? Int == samples)
        if samples > 8 {
            // Past the burst the server allows one a second: the query slowed down to it.
            #expect(elapsed > .seconds(Double(samples - 8) * 0.8))
        }
    }
}

import NIOCore
#endif
