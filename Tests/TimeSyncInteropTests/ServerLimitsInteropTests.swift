#if CLI
import Crypto
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Testing
import TimeSync
import TimeSyncWire
import TimeSyncNTP
import TimeSyncNTS
import TimeSyncRoughtimeServer
import TimeSyncTestSupport
import TimeSyncRoughtime

/// The servers' limits on real loopback sockets, in real time: a Roughtime flood from one address
/// is cut to its burst before signing while another client is answered; `timesync serve --nts-ke`
/// keeps its connection caps and closes idle connections at its deadline while a real key exchange
/// goes through.
@Suite(.serialized) struct ServerLimitsInteropTests {
    /// Counts the datagrams a socket receives.
    final class ReplyCounter: ChannelInboundHandler, Sendable {
        typealias InboundIn = AddressedEnvelope<ByteBuffer>
        let count = NIOLockedValueBox(0)

        func channelRead(context: ChannelHandlerContext, data: NIOAny) { count.withLockedValue { $0 += 1 } }
    }

    static func datagramSocket(bindingTo host: String) async throws -> (any Channel, ReplyCounter) {
        let counter = ReplyCounter()
        let channel = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.socketOption(.so_rcvbuf), value: 1 << 21)
            .channelInitializer { $0.pipeline.addHandler(counter) }
            .bind(host: host, port: 0).get()
        return (channel, counter)
    }

    /// Polls `condition` every 20 ms until it holds or `timeout` passes.
    static func eventually(timeout: Duration = .seconds(20), _ condition: () async throws -> Bool) async throws -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while clock.now < deadline {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return try await condition()
    }

    /// 200 requests from 127.0.0.2 at once, under a limit of 8 back to back and almost no refill:
    /// 8 are answered and 192 dropped before signing (at most 8 signatures for the flood), while a
    /// client on 127.0.0.1 gets its signed reply.
    @Test(.timeLimit(.minutes(1))) func aRoughtimeFloodIsCutToItsBurstBeforeSigning() async throws {
        let key = Curve25519.Signing.PrivateKey()
        let server = try RoughtimeServer(
            configuration: .init(host: "127.0.0.1", port: 0, batchSize: 1, rateLimit: 0.001, rateLimitBurst: 8), longTermKey: key)
        let running = Task { try await server.run() }
        defer { running.cancel() }
        let port = try #require(try await server.localAddress().port)
        let publicKey = Array(key.publicKey.rawRepresentation)
        let target = try SocketAddress(ipAddress: "127.0.0.1", port: port)
        let (flooder, replies) = try await Self.datagramSocket(bindingTo: "127.0.0.2")
        defer { flooder.close(promise: nil) }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let request = RoughtimeRequest(versions: [.rfc], nonce: (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }, serverKey: publicKey)
            try await flooder.writeAndFlush(AddressedEnvelope(remoteAddress: target, data: ByteBuffer(bytes: request.packet)))
        }
        #expect(try await Self.eventually { try await server.statistics().received == 200 }, "the server read the flood")
        #expect(try await Self.eventually { replies.count.withLockedValue { $0 } == 8 }, "the burst is answered")
        let polite = RoughtimeClient(host: "127.0.0.1", port: port, publicKey: publicKey, versions: [.rfc], addressPolicy: .allowingLocal)
        _ = try await polite.exchange(timeout: .seconds(10))
        let statistics = try await server.statistics()
        #expect(statistics.dropped[.rateLimited] == 192)
        #expect(statistics.replied == 9 && statistics.batches == 9, "one signature per answered request")
        #expect(replies.count.withLockedValue { $0 } == 8)
        running.cancel()
        _ = try? await running.value
    }

    /// The open descriptors of process `pid`.
    static func descriptors(of pid: Int32) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1
    }

    /// `timesync serve --nts-ke` with caps of 4 per address and 20 in all and a 1 s deadline: 60
    /// idle connections from 10 addresses hold at most 20 of the server's descriptors (the sixth
    /// from each address and the oldest beyond 20 are closed at once), a real key exchange
    /// (`timesync query nts://`) succeeds meanwhile, and the connections still open are closed at
    /// the deadline.
    @Test(.enabled(if: Interop.shouldRun(["openssl"])), .timeLimit(.minutes(1)))
    func theKeyExchangeServerKeepsItsCapsAndDeadline() async throws {
        let timesync = try #require(Interop.timesyncBinary(), "build the timesync command: swift build --traits CLI")
        let credentials = try NTSInteropTests.Credentials()
        defer { try? FileManager.default.removeItem(atPath: credentials.directory) }
        let ntpPort = try await freeUDPPort()
        let kePort = try await freeUDPPort()
        let server = try ChildProcess(
            timesync,
            [
                "serve", "--ntp", "127.0.0.1:\(ntpPort)", "--nts-ke", "127.0.0.1:\(kePort)", "--cert", credentials.certificate, "--key",
                credentials.key, "--local-stratum", "10", "--nts-ke-timeout", "1", "--nts-ke-max-connections", "20",
                "--nts-ke-max-connections-per-address", "4", "--log-level", "info",
            ])
        defer { server.stop() }
        #expect(try await server.wait(timeout: .seconds(20)) { server.stderr.contains("NTS-KE server listening") }, "\(server.stderr)")
        #expect(server.stderr.contains("maximumConnections=20") && server.stderr.contains("maximumConnectionsPerAddress=4"), "\(server.stderr)")
        let pid = server.process.processIdentifier
        let idle = Self.descriptors(of: pid)

        var connections: [any Channel] = []
        for index in 0..<60 {
            connections.append(
                try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                    .bind(to: try SocketAddress(ipAddress: "127.0.0.\(index % 10 + 2)", port: 0))
                    .connect(host: "127.0.0.1", port: kePort).get())
        }
        defer { for channel in connections { channel.close(promise: nil) } }
        #expect(
            try await Self.eventually { connections.filter { $0.isActive }.count <= 20 },
            "at most 20 stay open: \(connections.filter { $0.isActive }.count)")
        #expect(Self.descriptors(of: pid) <= idle + 20, "the server holds no more descriptors than its cap")

        let query = try await ChildProcess.run(
            timesync,
            ["query", "nts://127.0.0.1:\(kePort)", "--ca-file", credentials.certificate, "--allow-local-addresses", "--samples", "1", "--timeout", "5"])
        #expect(query.status == 0 && query.stdout.contains("authenticated nts"), "\(query.stdout) \(query.stderr)")

        #expect(try await Self.eventually(timeout: .seconds(10)) { connections.allSatisfy { !$0.isActive } }, "idle connections end at the deadline")
        #expect(try await Self.eventually(timeout: .seconds(10)) { Self.descriptors(of: pid) <= idle })
    }
}
#endif
