#if NTPServer
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Logging
import Metrics
import NIOCore
import NIOEmbedded
import Testing
import TimeSync
import TimeSyncWire
import TimeSyncTesting
import TimeSyncNTP
@testable import TimeSyncNTPServer
@testable import TimeSyncServerSupport

/// The NTP server's channel handler on `EmbeddedChannel`: datagrams in, datagrams out, no socket, no sleep.
@Suite struct ChannelHandlerTests {
    static let client = try! SocketAddress(ipAddress: "192.0.2.7", port: 40_123)
    static let request = NTPPacket(version: 4, mode: .client, poll: 6, transmitTimestamp: NTPTimestamp(rawValue: 0xe320_4f5c_607a_fe66))

    /// A server handler on an embedded channel, its clocks a hand-moved time base.
    static func serverChannel(
        _ configuration: NTPServerConfiguration = NTPServerConfiguration(host: "127.0.0.1", port: 0, localStratum: 2),
        timeBase: ManualTimeBase
    ) throws -> (EmbeddedChannel, NIOLoopBoundBox<NTPServerState>) {
        let channel = EmbeddedChannel()
        let state = NIOLoopBoundBox(
            NTPServerState(
                configuration: configuration, counters: NTPServerCounters(metricsFactory: NOOPMetricsHandler.instance),
                limiter: AddressRateLimiter(configuration: configuration), kernelClock: FixedKernelClock()),
            eventLoop: channel.embeddedEventLoop)
        try channel.pipeline.syncOperations.addHandler(NTPServerHandler(state: state, timeBase: timeBase, logger: Logger(label: "test")))
        return (channel, state)
    }

    static func send(_ bytes: [UInt8], to channel: EmbeddedChannel) throws -> [UInt8]? {
        try channel.writeInbound(AddressedEnvelope(remoteAddress: client, data: ByteBuffer(bytes: bytes)))
        guard let out = try channel.readOutbound(as: AddressedEnvelope<ByteBuffer>.self) else { return nil }
        #expect(out.remoteAddress == client, "the reply goes back to the sender")
        return Array(out.data.readableBytesView)
    }

    @Test func serverHandlerRepliesWithTheTimeBasesClock() throws {
        let timeBase = ManualTimeBase()
        let (channel, state) = try Self.serverChannel(timeBase: timeBase)
        let bytes = try #require(try Self.send(Self.request.encoded(), to: channel))
        #expect(bytes.count == 48)
        let reply = try NTPPacket(decoding: bytes)
        #expect(reply.mode == .server && reply.stratum == 2)
        #expect(reply.originTimestamp == Self.request.transmitTimestamp)
        #expect(reply.receiveTimestamp == NTPTimestamp(timeBase.wallNow()))
        #expect(reply.transmitTimestamp == NTPTimestamp(timeBase.wallNow()))
        channel.pipeline.fireChannelReadComplete()
        #expect(state.value.statistics.received == 1 && state.value.statistics.replied == 1)
        _ = try channel.finish()
    }

    @Test func serverHandlerDropsWhatIsNotARequestAndCountsWhy() throws {
        let (channel, state) = try Self.serverChannel(timeBase: ManualTimeBase())
        var serverMode = Self.request
        serverMode.mode = .server
        #expect(try Self.send(Array(repeating: 0xAB, count: 20), to: channel) == nil)
        #expect(try Self.send(serverMode.encoded(), to: channel) == nil)
        #expect(try Self.send(Self.request.encoded() + [UInt8](repeating: 0, count: 3000), to: channel) == nil)
        channel.pipeline.fireChannelReadComplete()
        let statistics = state.value.statistics
        #expect(statistics.received == 3 && statistics.replied == 0)
        #expect(statistics.dropped == [.malformed: 1, .notClientMode: 1, .oversize: 1])
        _ = try channel.finish()
    }

    @Test func serverHandlerKissesAClientOverItsLimitOnTheTimeBasesClock() throws {
        var configuration = NTPServerConfiguration(host: "127.0.0.1", port: 0, localStratum: 2)
        configuration.rateLimit = 1.0 / 16
        configuration.rateLimitBurst = 1
        let timeBase = ManualTimeBase()
        let (channel, _) = try Self.serverChannel(configuration, timeBase: timeBase)
        #expect(try NTPPacket(decoding: try #require(try Self.send(Self.request.encoded(), to: channel))).stratum == 2)
        let kiss = try NTPPacket(decoding: try #require(try Self.send(Self.request.encoded(), to: channel)))
        #expect(kiss.stratum == 0 && kiss.referenceID == .rate)
        // Sixteen seconds later the bucket holds a token again.
        timeBase.advance(by: .seconds(16))
        #expect(try NTPPacket(decoding: try #require(try Self.send(Self.request.encoded(), to: channel))).stratum == 2)
        _ = try channel.finish()
    }
}

/// A kernel clock that always reports an unsynchronized host (the configuration's local stratum then
/// decides what replies advertise).
private struct FixedKernelClock: KernelClock {
    func clockState() -> NTPClockState? { .unknown }
}
#endif
