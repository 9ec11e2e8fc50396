#if CLI
import Logging
import Metrics
import NIOCore
import Testing
import TimeSync
import TimeSyncWire
import TimeSyncTestSupport
import TimeSyncNTP
@testable import TimeSyncNTPServer
import TimeSyncServerSupport

/// The SNTP server's two datagram paths on real loopback sockets: the batched one (Linux:
/// recvmmsg/sendmmsg, kernel receive timestamps) and SwiftNIO's, which stays the portable one.
@Suite struct NTPBatchedServerTests {
    static var paths: [NTPServerConfiguration.DatagramIO] {
        #if os(Linux)
        [.batched, .swiftNIO]
        #else
        [.swiftNIO]
        #endif
    }

    /// A datagram longer than the receive slot (cut by the kernel on the batched path, by SwiftNIO's
    /// slot on the other), garbage and a request, sent together: only the request is answered,
    /// and each drop is counted by its reason.
    @Test(arguments: paths) func bothPathsAnswerRequestsAndCountWhatTheyDrop(io: NTPServerConfiguration.DatagramIO) async throws {
        let configuration = NTPServerConfiguration(host: "127.0.0.1", port: 0, localStratum: 1, datagramIO: io)
        try await withNTPServer(configuration) { server, address in
            let probe = try await UDPProbe.bind(host: "127.0.0.1")
            defer { probe.close() }
            let request = NTPPacket(version: 4, mode: .client, transmitTimestamp: NTPTimestamp(rawValue: 0xC0FFEE))
            try await probe.send([UInt8](repeating: 0x23, count: 5000), to: address)
            try await probe.send([UInt8](repeating: 0xAB, count: 10), to: address)
            try await probe.send(request.encoded(), to: address)
            let reply = try NTPPacket(decoding: try #require(try await probe.next(), "no reply"))
            #expect(reply.mode == .server && reply.stratum == 1 && reply.originTimestamp == request.transmitTimestamp)
            let statistics = try await server.statistics()
            #expect(statistics.received == 3 && statistics.replied == 1)
            #expect(statistics.dropped == [.oversize: 1, .malformed: 1])
        }
    }

    #if os(Linux)
    /// A request that waits 300 ms in the socket's queue before the server reads it: with kernel
    /// timestamps its receive timestamp is when it was queued (the reply shows 300 ms between
    /// receive and transmit); without, when it was read (almost none).
    @Test(arguments: [true, false]) func kernelTimestampsDateARequestFromWhenItWasQueued(kernelTimestamps: Bool) async throws {
        let configuration = NTPServerConfiguration(
            host: "127.0.0.1", port: 0, localStratum: 1, datagramIO: .batched, kernelTimestamps: kernelTimestamps)
        let state = Locked(
            NTPServerState(
                configuration: configuration, counters: NTPServerCounters(metricsFactory: NOOPMetricsHandler.instance),
                limiter: AddressRateLimiter(configuration: configuration), kernelClock: FakeKernelClock(.unknown)))
        let sockets = try BatchedDatagramSockets(configuration: configuration, states: [state], timeBase: SystemTimeBase(), logger: Logger(label: "test"))
        let probe = try await UDPProbe.bind(host: "127.0.0.1")
        defer { probe.close() }
        let request = NTPPacket(version: 4, mode: .client, transmitTimestamp: NTPTimestamp(rawValue: 0xFEED))
        try await probe.send(request.encoded(), to: sockets.address)
        try await Task.sleep(for: .milliseconds(300))  // queued in the server's socket, not read yet
        sockets.start()
        let bytes = try await probe.next()
        sockets.stop()
        await sockets.finished()
        let reply = try NTPPacket(decoding: try #require(bytes, "no reply"))
        let now = SystemTimeBase().wallNow()
        let residence = reply.transmitTimestamp.unixTime(near: now).nanoseconds - reply.receiveTimestamp.unixTime(near: now).nanoseconds
        if kernelTimestamps {
            #expect(residence >= 250_000_000, "receive → transmit \(residence) ns: the receive time is not the kernel's")
        } else {
            #expect(residence < 250_000_000, "receive → transmit \(residence) ns")
        }
        #expect(state.withLock { $0.statistics.replied } == 1)
    }

    /// Two batched sockets share a free port; a third server asking for that port is refused,
    /// even though the two use `SO_REUSEPORT`, and the two keep answering.
    @Test func batchedSocketsRefuseAPortAlreadyServed() async throws {
        let configuration = NTPServerConfiguration(host: "127.0.0.1", port: 0, localStratum: 1, threads: 2, datagramIO: .batched)
        try await withNTPServer(configuration) { _, address in
            let port = try #require(address.port)
            let intruder = NTPServer(
                configuration: .init(host: "127.0.0.1", port: port, localStratum: 1, threads: 2, datagramIO: .batched),
                kernelClock: FakeKernelClock(.unknown))
            await #expect(throws: ServerBindError.self) { try await intruder.run() }
            let probe = try await UDPProbe.bind(host: "127.0.0.1")
            defer { probe.close() }
            try await probe.send(NTPPacket(version: 4, mode: .client, transmitTimestamp: NTPTimestamp(rawValue: 7)).encoded(), to: address)
            #expect(try await probe.next() != nil)
        }
    }
    #endif
}
#endif
