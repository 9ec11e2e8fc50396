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

/// The Roughtime server's channel handler on `EmbeddedChannel`: datagrams in, signed replies out,
/// batches as the socket would deliver them, the online key renewed as the clock moves. No socket,
/// no sleep.
@Suite struct RoughtimeServerHandlerTests {
    static let longTermKey = try! Curve25519.Signing.PrivateKey(rawRepresentation: [UInt8](repeating: 9, count: 32))
    static let publicKey = Array(longTermKey.publicKey.rawRepresentation)
    static let lifetime = Duration.seconds(86_400)

    static func client(_ index: Int) -> SocketAddress { try! SocketAddress(ipAddress: "192.0.2.\(index % 250 + 1)", port: 40_000 + index) }

    static func serverChannel(batchSize: Int, timeBase: ManualTimeBase, versions: [RoughtimeVersion] = RoughtimeVersion.served) throws -> (
        EmbeddedChannel, NIOLoopBoundBox<RoughtimeServerState>
    ) {
        let channel = EmbeddedChannel()
        let responder = try RoughtimeResponder(
            longTermKey: longTermKey, validity: RoughtimeResponder.window(now: timeBase.wallNow(), lifetime: lifetime), versions: versions)
        let state = NIOLoopBoundBox(RoughtimeServerState(responder: responder, lifetime: lifetime), eventLoop: channel.embeddedEventLoop)
        try channel.pipeline.syncOperations.addHandler(
            RoughtimeServerHandler(state: state, timeBase: timeBase, batchSize: batchSize, logger: Logger(label: "test")))
        return (channel, state)
    }

    static func request(_ index: Int, versions: [RoughtimeVersion] = [.rfc, .draft14], key: [UInt8]? = publicKey) -> RoughtimeRequest {
        var generator = SeededGenerator(seed: UInt64(index) + 100)
        return RoughtimeRequest(versions: versions, nonce: generator.bytes(32), serverKey: key)
    }

    /// Delivers datagrams as one read burst would: a read each, without the burst's end.
    static func read(_ requests: [RoughtimeRequest], into channel: EmbeddedChannel, from first: Int = 0) {
        for (offset, request) in requests.enumerated() {
            channel.pipeline.fireChannelRead(AddressedEnvelope(remoteAddress: client(first + offset), data: ByteBuffer(bytes: request.packet)))
        }
    }

    static func replies(from channel: EmbeddedChannel) throws -> [AddressedEnvelope<ByteBuffer>] {
        var out: [AddressedEnvelope<ByteBuffer>] = []
        while let envelope = try channel.readOutbound(as: AddressedEnvelope<ByteBuffer>.self) { out.append(envelope) }
        return out
    }

    /// Verifies each reply against its request and returns the signatures seen.
    static func verify(_ replies: [AddressedEnvelope<ByteBuffer>], requests: [RoughtimeRequest], first: Int = 0) throws -> [[UInt8]] {
        #expect(replies.count == requests.count)
        return try zip(replies, requests).enumerated().map { offset, pair in
            let (envelope, request) = pair
            #expect(envelope.remoteAddress == client(first + offset), "each reply goes back to its own sender")
            let bytes = Array(envelope.data.readableBytesView)
            #expect(bytes.count <= request.packet.count)
            _ = try RoughtimeResponse.verify(bytes, request: request, publicKey: publicKey)
            // What a load generator matches replies to requests by, before verifying them.
            #expect(RoughtimeResponse.unverifiedNonce(of: bytes) == request.nonce)
            #expect(RoughtimeResponse.unverifiedNonce(of: Array(bytes.prefix(bytes.count / 2))) == nil, "a cut reply has no nonce")
            return Array(try RoughtimeMessage(decoding: try RoughtimePacket.unframe(bytes[...])).value(.signature))
        }
    }

    @Test func aReadBurstIsAnsweredUnderOneSignatureWhenItEnds() throws {
        let (channel, state) = try Self.serverChannel(batchSize: 64, timeBase: ManualTimeBase())
        let requests = (0..<10).map { Self.request($0) }
        Self.read(requests, into: channel)
        #expect(try Self.replies(from: channel).isEmpty, "nothing is signed before the burst ends")
        channel.pipeline.fireChannelReadComplete()
        let signatures = try Self.verify(try Self.replies(from: channel), requests: requests)
        #expect(Set(signatures).count == 1)
        let statistics = state.value.statistics
        #expect(statistics.received == 10 && statistics.replied == 10 && statistics.batches == 1 && statistics.delegations == 1)
        _ = try channel.finish()
    }

    @Test(arguments: [(1, 10, 10), (4, 10, 3), (64, 70, 2)])
    func batchSizeCapsHowManyRepliesShareASignature(batchSize: Int, count: Int, expectedBatches: Int) throws {
        let (channel, state) = try Self.serverChannel(batchSize: batchSize, timeBase: ManualTimeBase())
        let requests = (0..<count).map { Self.request($0) }
        Self.read(requests, into: channel)
        // Full batches are signed as soon as they are full, the rest when the burst ends; the
        // replies all leave together then.
        #expect(state.value.statistics.batches == count / batchSize)
        #expect(try Self.replies(from: channel).isEmpty)
        channel.pipeline.fireChannelReadComplete()
        #expect(try Self.replies(from: channel).count == count)
        _ = try channel.finish()
        let statistics = state.value.statistics
        #expect(statistics.batches == expectedBatches && statistics.replied == count)
    }

    @Test func signaturesFollowTheBatches() throws {
        let (channel, _) = try Self.serverChannel(batchSize: 4, timeBase: ManualTimeBase())
        let requests = (0..<10).map { Self.request($0) }
        Self.read(requests, into: channel)
        channel.pipeline.fireChannelReadComplete()
        let signatures = try Self.verify(try Self.replies(from: channel), requests: requests)
        #expect(Set(signatures[0..<4]).count == 1 && Set(signatures[4..<8]).count == 1 && Set(signatures[8...]).count == 1)
        #expect(Set(signatures).count == 3)
        _ = try channel.finish()
    }

    /// Requests the protocol says to leave unanswered, in a burst with good ones: only the good
    /// ones are answered, and each drop is counted by its reason.
    @Test func requestsNotToAnswerAreDroppedAndCounted() throws {
        let (channel, state) = try Self.serverChannel(batchSize: 64, timeBase: ManualTimeBase(), versions: [.rfc, .draft14])
        let good = [Self.request(0), Self.request(1, versions: [.draft14])]
        let otherServer = Self.request(2, key: Array(Curve25519.Signing.PrivateKey().publicKey.rawRepresentation))
        let oldVersion = Self.request(3, versions: [.draft11])
        channel.pipeline.fireChannelRead(AddressedEnvelope(remoteAddress: Self.client(0), data: ByteBuffer(bytes: good[0].packet)))
        channel.pipeline.fireChannelRead(AddressedEnvelope(remoteAddress: Self.client(9), data: ByteBuffer(bytes: Array(good[1].packet.prefix(600)))))
        channel.pipeline.fireChannelRead(AddressedEnvelope(remoteAddress: Self.client(9), data: ByteBuffer(bytes: otherServer.packet)))
        channel.pipeline.fireChannelRead(AddressedEnvelope(remoteAddress: Self.client(9), data: ByteBuffer(bytes: oldVersion.packet)))
        channel.pipeline.fireChannelRead(AddressedEnvelope(remoteAddress: Self.client(9), data: ByteBuffer(bytes: [UInt8](repeating: 0x52, count: 1024))))
        channel.pipeline.fireChannelRead(AddressedEnvelope(remoteAddress: Self.client(1), data: ByteBuffer(bytes: good[1].packet)))
        channel.pipeline.fireChannelReadComplete()
        let replies = try Self.replies(from: channel)
        #expect(replies.map(\.remoteAddress) == [Self.client(0), Self.client(1)])
        #expect(try RoughtimeResponse.verify(Array(replies[1].data.readableBytesView), request: good[1], publicKey: Self.publicKey).version == .draft14)
        let statistics = state.value.statistics
        #expect(statistics.received == 6 && statistics.replied == 2)
        #expect(statistics.dropped == [.tooShort: 1, .otherServer: 1, .unsupportedVersion: 1, .malformed: 1])
        _ = try channel.finish()
    }

    /// The clock runs on past three quarters of the online key's lifetime: the next burst is signed
    /// by a new online key whose window covers the time, and the old key signs nothing more.
    @Test func theOnlineKeyIsRenewedBeforeItsWindowEnds() throws {
        let timeBase = ManualTimeBase()
        let (channel, state) = try Self.serverChannel(batchSize: 64, timeBase: timeBase)
        func ask(_ index: Int) throws -> RoughtimeResponse {
            let request = Self.request(index)
            Self.read([request], into: channel, from: index)
            channel.pipeline.fireChannelReadComplete()
            let reply = try #require(try Self.replies(from: channel).first)
            return try RoughtimeResponse.verify(Array(reply.data.readableBytesView), request: request, publicKey: Self.publicKey)
        }
        let first = try ask(0)
        timeBase.jumpWall(by: .seconds(17 * 3_600))
        #expect(try ask(1).delegatedKey == first.delegatedKey)
        timeBase.jumpWall(by: .seconds(2 * 3_600))
        let renewed = try ask(2)
        #expect(renewed.delegatedKey != first.delegatedKey)
        #expect(renewed.validity.contains(UInt64(timeBase.wallNow().seconds) + 86_400 - 1))
        #expect(state.value.statistics.delegations == 2)
        _ = try channel.finish()
    }
}
#endif
