#if CLI
import NIOCore
import NIOPosix
import Testing
import TimeSync
import TimeSyncSockets
import TimeSyncWire
import TimeSyncFixtures
import UDPRelay
import TimeSyncTestSupport
import TimeSyncNTP
import TimeSyncNTPServer

@Suite struct UDPRelayTests {
    @Test func delayedExchangeStillBoundsTheTrueOffset() async throws {
        let shift = Duration.milliseconds(300)
        try await withNTPServer(timeBase: ShiftedTimeBase(shift: shift)) { _, address in
            let relay = try await UDPRelay.start(
                upstream: address,
                configuration: UDPRelayConfiguration(upstreamDelay: .milliseconds(30), downstreamDelay: .milliseconds(5), jitter: .milliseconds(5), seed: 1))
            let result = try await NTPClient(timeBase: SystemTimeBase()).query(host: "127.0.0.1", port: relay.localAddress.port!, timeout: .seconds(2), samples: 2, interval: .milliseconds(10))
            // The relay cannot deliver early: the delay is at least the two fixed delays.
            #expect(result.delay >= .milliseconds(35))
            // An asymmetric path biases the midpoint but the bounds still hold the truth.
            #expect(result.bounds.contains(shift.nanosecondsClamped))
            let statistics = try await relay.statistics()
            #expect(statistics.forwardedUpstream == 2)
            #expect(statistics.forwardedDownstream == 2)
            try await relay.close()
        }
    }

    @Test func lossIsSeededAndReproducible() async throws {
        try await withNTPServer(NTPServerConfiguration(host: "127.0.0.1", port: 0, rateLimit: 1000, rateLimitBurst: 1000)) { _, address in
            var drops: [Int] = []
            for _ in 0..<2 {
                let relay = try await UDPRelay.start(
                    upstream: address, configuration: UDPRelayConfiguration(upstreamLoss: 0.5, seed: 1234))
                let count = try await sendRequests(60, to: relay)
                let statistics = try await relay.statistics()
                #expect(statistics.droppedUpstream + statistics.forwardedUpstream == count)
                drops.append(statistics.droppedUpstream)
                try await relay.close()
            }
            #expect(drops[0] == drops[1])
            #expect(drops[0] > 10 && drops[0] < 50)
        }
    }

    @Test func totalLossDropsEverything() async throws {
        try await withNTPServer { _, address in
            let relay = try await UDPRelay.start(upstream: address, configuration: UDPRelayConfiguration(downstreamLoss: 1))
            await expectThrows(NTPClientError.timeout) {
                try await NTPClient(timeBase: SystemTimeBase()).exchange(with: relay.localAddress, timeout: .milliseconds(200))
            }
            let statistics = try await relay.statistics()
            #expect(statistics.forwardedUpstream == 1)
            #expect(statistics.droppedDownstream == 1)
            try await relay.close()
        }
    }

    @Test func spikesAreCounted() async throws {
        try await withNTPServer { _, address in
            let relay = try await UDPRelay.start(
                upstream: address, configuration: UDPRelayConfiguration(spikeProbability: 1, spikeDelay: .milliseconds(20)))
            let reply = try await NTPClient(timeBase: SystemTimeBase()).exchange(with: relay.localAddress, timeout: .seconds(2))
            #expect(reply.requestSent.duration(to: reply.responseReceived) >= .milliseconds(40))
            #expect(try await relay.statistics().spikes == 2)
            try await relay.close()
        }
    }

    /// Sends `count` requests to the relay from one socket and waits until the relay has judged all.
    func sendRequests(_ count: Int, to relay: UDPRelay) async throws -> Int {
        let socket = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton).bind(host: "127.0.0.1", port: 0).get()
        defer { socket.close(promise: nil) }
        for index in 0..<count {
            let request = NTPPacket(mode: .client, transmitTimestamp: NTPTimestamp(rawValue: UInt64(index + 1)))
            try await socket.writeAndFlush(AddressedEnvelope(remoteAddress: relay.localAddress, data: ByteBuffer(bytes: request.encoded())))
        }
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            let statistics = try await relay.statistics()
            if statistics.droppedUpstream + statistics.forwardedUpstream >= count { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        return count
    }
}
#endif
