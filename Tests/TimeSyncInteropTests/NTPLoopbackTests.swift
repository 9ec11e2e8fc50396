#if CLI
import NIOCore
import NIOPosix
import Testing
import TimeSync
import TimeSyncSockets
import TimeSyncWire
import TimeSyncFixtures
import TimeSyncTestSupport
import TimeSyncNTP
import TimeSyncNTPServer

/// Our client against our server on real loopback sockets.
@Suite struct NTPLoopbackTests {
    @Test func queryMeasuresAShiftedServer() async throws {
        let shift = Duration.milliseconds(-750)
        try await withNTPServer(timeBase: ShiftedTimeBase(shift: shift)) { _, address in
            let result = try await NTPClient(timeBase: SystemTimeBase()).query(host: "127.0.0.1", port: address.port!, timeout: .seconds(2), samples: 4, interval: .milliseconds(20))
            let shiftNanoseconds = shift.nanosecondsClamped
            #expect(result.bounds.contains(shiftNanoseconds), "bounds \(result.bounds) miss the shift")
            #expect(abs((result.wallClockOffset - shift).nanosecondsClamped) < 2_000_000)
            #expect(result.samples.count == 4)
            #expect(result.stratum == 1)
            #expect(result.referenceID == .local)
            #expect(result.address == "127.0.0.1")
            #expect(result.error.nanosecondsClamped == result.bounds.halfWidth)
            #expect(result.delay >= .zero)
        }
    }

    /// Two sockets share the port (SO_REUSEPORT): clients from many source ports are all answered,
    /// the statistics add up over both, and the rate limit stays one per client address.
    @Test func severalSocketsShareThePortAndOneRateLimit() async throws {
        let configuration = NTPServerConfiguration(host: "127.0.0.1", port: 0, rateLimit: 0.001, rateLimitBurst: 12, threads: 2)
        try await withNTPServer(configuration) { server, address in
            // Each exchange leaves from a fresh socket (a new source port), so the kernel spreads them.
            for _ in 0..<12 {
                let reply = try await NTPClient(timeBase: SystemTimeBase()).exchange(with: address, timeout: .seconds(2))
                #expect(reply.packet.mode == .server && reply.packet.stratum == 1)
            }
            // The 13th request, from yet another port, is over the one shared bucket of 12.
            await expectThrows(NTPReplyError.kissOfDeath) {
                _ = try await NTPClient(timeBase: SystemTimeBase()).exchange(with: address, timeout: .seconds(2))
            }
            let statistics = try await server.statistics()
            #expect(statistics.received == 13)
            #expect(statistics.replied == 12)
            #expect(statistics.kissesSent == 1)
        }
    }

    @Test func serverOverItsRateLimitSendsRate() async throws {
        let configuration = NTPServerConfiguration(host: "127.0.0.1", port: 0, rateLimit: 0.001, rateLimitBurst: 2)
        try await withNTPServer(configuration) { server, address in
            let client = NTPClient(timeBase: SystemTimeBase())
            _ = try await client.exchange(with: address, timeout: .seconds(2))
            _ = try await client.exchange(with: address, timeout: .seconds(2))
            do {
                _ = try await client.exchange(with: address, timeout: .seconds(2))
                Issue.record("the third request within the burst of two was answered")
            } catch let error as NTPReplyError {
                #expect(error.code == .kissOfDeath)
                #expect(error.kissCode == .rate)
            }
            let statistics = try await server.statistics()
            #expect(statistics.replied == 2)
            #expect(statistics.kissesSent == 1)
        }
    }

    @Test func serverCanDropInsteadOfKissing() async throws {
        let configuration = NTPServerConfiguration(host: "127.0.0.1", port: 0, rateLimit: 0.001, rateLimitBurst: 1, overLimitAction: .drop)
        try await withNTPServer(configuration) { server, address in
            let client = NTPClient(timeBase: SystemTimeBase())
            _ = try await client.exchange(with: address, timeout: .seconds(2))
            await expectThrows(NTPClientError.timeout) {
                try await client.exchange(with: address, timeout: .milliseconds(200))
            }
            #expect(try await server.statistics().dropped[.rateLimited] == 1)
        }
    }

    @Test func serverIgnoresAndCountsWhatIsNotARequest() async throws {
        try await withNTPServer { server, address in
            let socket = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton).bind(host: "127.0.0.1", port: 0).get()
            defer { socket.close(promise: nil) }
            let junk: [[UInt8]] = [
                [1, 2, 3],
                NTPPacket(mode: .server).encoded(),
                NTPPacket(mode: .control).encoded(),
                NTPPacket(version: 7, mode: .client).encoded(),
            ]
            for bytes in junk {
                try await socket.writeAndFlush(AddressedEnvelope(remoteAddress: address, data: ByteBuffer(bytes: bytes)))
            }
            // A genuine request after the junk: once it is answered, the server has seen everything.
            _ = try await NTPClient(timeBase: SystemTimeBase()).exchange(with: address, timeout: .seconds(2))
            let statistics = try await server.statistics()
            #expect(statistics.received == 5)
            #expect(statistics.replied == 1)
            #expect(statistics.dropped == [.malformed: 1, .notClientMode: 2, .unsupportedVersion: 1])
        }
    }

    @Test func repliesAreNeverLargerThanRequests() async throws {
        try await withNTPServer { server, address in
            // A request with a MAC is answered with a bare 48-byte header.
            var request = NTPPacket(version: 4, mode: .client, transmitTimestamp: NTPTimestamp(rawValue: 0x1234))
            request.messageAuthenticationCode = [0, 0, 0, 1] + Array(repeating: 0xEE, count: 16)
            let received = try await roundTrip(request.encoded(), to: address)
            #expect(received.count == 48)
            #expect(try NTPPacket(decoding: received).originTimestamp == request.transmitTimestamp)
        }
    }

    @Test func ipv6Loopback() async throws {
        let configuration = NTPServerConfiguration(host: "::1", port: 0, localStratum: 1)
        let server = NTPServer(configuration: configuration)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await server.run() }
            defer { group.cancelAll() }
            let address: SocketAddress
            do {
                address = try await server.localAddress()
            } catch {
                return  // no IPv6 on this machine: nothing to test
            }
            // Several samples, as for IPv4: the tightest exchange bounds the error, so one late
            // wake-up on a busy machine does not decide the figure.
            let result = try await NTPClient(timeBase: SystemTimeBase()).query(
                host: "::1", port: address.port!, timeout: .seconds(2), samples: 4, interval: .milliseconds(20))
            #expect(result.address == "::1")
            #expect(result.bounds.contains(0), "bounds \(result.bounds) miss the true offset, 0")
            #expect(abs(result.wallClockOffset.nanosecondsClamped) < 2_000_000)
        }
    }

    @Test func serverStopsOnCancellation() async throws {
        let server = NTPServer(configuration: .init(host: "127.0.0.1", port: 0, localStratum: 1))
        let task = Task { try await server.run() }
        let address = try await server.localAddress()
        _ = try await NTPClient(timeBase: SystemTimeBase()).exchange(with: address, timeout: .seconds(2))
        task.cancel()
        try await task.value
        // The port is closed: the kernel answers port-unreachable, and the client says so at once
        // instead of waiting out its deadline.
        let timeBase = SystemTimeBase()
        let started = timeBase.monotonicNow()
        await expectThrows(NTPClientError.unreachable) {
            try await NTPClient(timeBase: SystemTimeBase()).exchange(with: address, timeout: .seconds(5))
        }
        #expect(started.duration(to: timeBase.monotonicNow()) < .seconds(5))
    }

    @Test func dnsFailureIsAnError() async {
        await expectThrows(NTPClientError.dnsFailure) {
            try await NTPClient(timeBase: SystemTimeBase()).query(host: "no-such-host.invalid", timeout: .milliseconds(200))
        }
    }
}
#endif
