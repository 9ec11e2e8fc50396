#if RoughtimeServer
import Crypto
import Logging
import NIOCore
import NIOEmbedded
import Testing
import TimeSync
import TimeSyncWire
import TimeSyncServerSupport
import TimeSyncTesting
@testable import TimeSyncRoughtimeServer

/// The Roughtime server's per-address rate limit on `EmbeddedChannel`, its clock moved by hand: a
/// flooding address is cut to its burst before anything is signed, its neighbours are answered, and
/// the limit refills with time. No socket, no sleep.
@Suite struct RoughtimeServerRateLimitTests {
    typealias Handler = RoughtimeServerHandlerTests

    static let flooder = try! SocketAddress(ipAddress: "198.51.100.7", port: 40_000)
    static let neighbour = try! SocketAddress(ipAddress: "198.51.100.8", port: 40_001)

    /// A server channel limited to `rate` requests a second in bursts of `burst` per address.
    static func limitedChannel(rate: Double, burst: Double, batchSize: Int, timeBase: ManualTimeBase) throws -> (
        EmbeddedChannel, NIOLoopBoundBox<RoughtimeServerState>
    ) {
        let channel = EmbeddedChannel()
        let responder = try RoughtimeResponder(
            longTermKey: Handler.longTermKey,
            validity: RoughtimeResponder.window(now: timeBase.wallNow(), lifetime: Handler.lifetime))
        let state = NIOLoopBoundBox(
            RoughtimeServerState(
                responder: responder, lifetime: Handler.lifetime, limiter: AddressRateLimiter(rate: rate, burst: burst, kissEvery: 0, seed: 5)),
            eventLoop: channel.embeddedEventLoop)
        try channel.pipeline.syncOperations.addHandler(
            RoughtimeServerHandler(state: state, timeBase: timeBase, batchSize: batchSize, logger: Logger(label: "test")))
        return (channel, state)
    }

    static func send(_ request: RoughtimeRequest, from client: SocketAddress, into channel: EmbeddedChannel) {
        channel.pipeline.fireChannelRead(AddressedEnvelope(remoteAddress: client, data: ByteBuffer(bytes: request.packet)))
    }

    /// One address sends 200 requests in a burst, each signed alone (batch 1, so a batch is a
    /// signature); a neighbour sends one among them. The flooder gets its burst of 8 answered, the
    /// neighbour its one; the other 192 are dropped before signing: 9 signatures, not 201.
    @Test func aFloodingAddressIsCutToItsBurstBeforeSigning() throws {
        let (channel, state) = try Self.limitedChannel(rate: 1, burst: 8, batchSize: 1, timeBase: ManualTimeBase())
        let requests = (0..<200).map { Handler.request($0) }
        for (index, request) in requests.enumerated() {
            Self.send(request, from: Self.flooder, into: channel)
            if index == 100 { Self.send(Handler.request(1_000), from: Self.neighbour, into: channel) }
        }
        channel.pipeline.fireChannelReadComplete()
        let replies = try Handler.replies(from: channel)
        #expect(replies.filter { $0.remoteAddress == Self.flooder }.count == 8)
        #expect(replies.filter { $0.remoteAddress == Self.neighbour }.count == 1)
        for (reply, request) in zip(replies.filter { $0.remoteAddress == Self.flooder }, requests) {
            _ = try RoughtimeResponse.verify(Array(reply.data.readableBytesView), request: request, publicKey: Handler.publicKey)
        }
        let statistics = state.value.statistics
        #expect(statistics.received == 201 && statistics.replied == 9)
        #expect(statistics.batches == 9, "one signature per answered request, none for the dropped")
        #expect(statistics.dropped == [.rateLimited: 192] && statistics.droppedTotal == 192)
        _ = try channel.finish()
    }

    /// Dropped requests never reach a batch: with batches of 64, a flood of 200 from one address
    /// is signed once, over the 8 admitted.
    @Test func droppedRequestsTakeNoPlaceInABatch() throws {
        let (channel, state) = try Self.limitedChannel(rate: 1, burst: 8, batchSize: 64, timeBase: ManualTimeBase())
        for index in 0..<200 { Self.send(Handler.request(index), from: Self.flooder, into: channel) }
        channel.pipeline.fireChannelReadComplete()
        #expect(try Handler.replies(from: channel).count == 8)
        #expect(state.value.statistics.batches == 1)
        _ = try channel.finish()
    }

    /// The bucket refills at the rate: after 3 s of the injected clock, three more are answered.
    @Test func theLimitRefillsWithTime() throws {
        let timeBase = ManualTimeBase()
        let (channel, state) = try Self.limitedChannel(rate: 1, burst: 8, batchSize: 64, timeBase: timeBase)
        func burst(_ count: Int) throws -> Int {
            for index in 0..<count { Self.send(Handler.request(index), from: Self.flooder, into: channel) }
            channel.pipeline.fireChannelReadComplete()
            return try Handler.replies(from: channel).count
        }
        #expect(try burst(20) == 8)
        #expect(try burst(5) == 0)
        timeBase.advance(by: .seconds(3))
        #expect(try burst(5) == 3)
        #expect(state.value.statistics.dropped[.rateLimited] == 19)
        _ = try channel.finish()
    }

    /// A source port does not make another client: the limit is per address.
    @Test func theLimitIsPerAddressNotPerPort() throws {
        let (channel, _) = try Self.limitedChannel(rate: 1, burst: 4, batchSize: 64, timeBase: ManualTimeBase())
        for index in 0..<20 {
            Self.send(Handler.request(index), from: try SocketAddress(ipAddress: "198.51.100.7", port: 40_000 + index), into: channel)
        }
        channel.pipeline.fireChannelReadComplete()
        #expect(try Handler.replies(from: channel).count == 4)
        _ = try channel.finish()
    }

    @Test func theConfigurationLimitsByDefault() {
        let configuration = RoughtimeServerConfiguration(host: "127.0.0.1", port: 0)
        #expect(configuration.rateLimit == 1 && configuration.rateLimitBurst == 8)
        #expect(RoughtimeDropReason.rateLimited.description == "client over its rate limit")
    }
}
#endif
