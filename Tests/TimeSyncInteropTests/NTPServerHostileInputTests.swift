#if CLI
import NIOCore
import NIOPosix
import Testing
import TimeSync
import TimeSyncWire
import TimeSyncServerSupport
import TimeSyncTestSupport
import TimeSyncNTP
import TimeSyncNTPServer

/// The server against hostile input on real loopback sockets: oversize datagrams, floods.
@Suite struct NTPServerHostileInputTests {
    /// A request padded to `size` bytes whose first 2048 bytes parse as a whole request: version 3
    /// with a long trailer, or version 4 with one extension field that ends exactly at byte 2048.
    static func paddedRequest(version: UInt8, size: Int, transmit: UInt64) -> [UInt8] {
        var bytes = NTPPacket(version: version, mode: .client, poll: 6, transmitTimestamp: NTPTimestamp(rawValue: transmit)).encoded()
        if version == 4 {
            let length = 2048 - NTPPacket.headerSize
            bytes += [0x01, 0x04, UInt8(length >> 8), UInt8(length & 0xFF)]
        }
        bytes += [UInt8](repeating: 0, count: size - bytes.count)
        return bytes
    }

    /// A 3000-byte datagram whose first 2048 bytes are a valid request is ignored, not cut to the
    /// receive slot and answered; the request after it is answered first.
    @Test(arguments: [UInt8(3), 4])
    func oversizeDatagramsAreIgnored(version: UInt8) async throws {
        try await withNTPServer { server, address in
            let socket = try await UDPProbe.bind(host: "127.0.0.1")
            defer { socket.close() }
            try await socket.send(Self.paddedRequest(version: version, size: 3000, transmit: 0xAAAA), to: address)
            let request = NTPPacket(version: 4, mode: .client, transmitTimestamp: NTPTimestamp(rawValue: 0xBBBB))
            try await socket.send(request.encoded(), to: address)
            let first = try #require(try await socket.next(), "no reply at all")
            #expect(try NTPPacket(decoding: first).originTimestamp.rawValue == 0xBBBB, "the oversize datagram was answered")
            let statistics = try await server.statistics()
            #expect(statistics.dropped == [.oversize: 1])
            #expect(statistics.replied == 1)
        }
    }

    /// The responder itself: up to 2048 bytes parse, one more byte is oversize, whatever it holds.
    @Test(arguments: [UInt8(3), 4])
    func theResponderDropsWhatIsOverTheLimit(version: UInt8) {
        let whole = Self.paddedRequest(version: version, size: 2048, transmit: 1)
        guard case .answer = NTPServerResponder.check(whole) else {
            Issue.record("a 2048-byte request was not accepted")
            return
        }
        #expect(NTPServerResponder.check(whole + [0]) == .drop(.oversize))
        #expect(NTPServerResponder.check(Self.paddedRequest(version: version, size: 3000, transmit: 1)) == .drop(.oversize))
        (whole + [0]).withUnsafeBytes { #expect(NTPServerResponder.check($0) == .drop(.oversize)) }
    }

    /// A flood from one address past its burst: a small share of kisses, the rest dropped, so the
    /// server sends back far fewer bytes than it gets; each kiss asks for the limiter's interval
    /// (poll 10 for 0.001 requests/s), not the client's poll (−4) echoed.
    @Test func aFloodFromOneAddressGetsFewKisses() async throws {
        let configuration = NTPServerConfiguration(host: "127.0.0.1", port: 0, rateLimit: 0.001, rateLimitBurst: 2)
        try await withNTPServer(configuration) { server, address in
            let flooder = try await UDPProbe.bind(host: "127.0.0.1")
            defer { flooder.close() }
            let request = NTPPacket(version: 4, mode: .client, poll: -4, transmitTimestamp: NTPTimestamp(rawValue: 0xF00D)).encoded()
            let flood = 200
            for _ in 0..<flood { try await flooder.send(request, to: address) }
            // From another address, within its own limit: once it is answered, the server (one
            // socket, one queue) has judged the whole flood.
            let other = try await UDPProbe.bind(host: "127.0.0.2")
            defer { other.close() }
            try await other.send(request, to: address)
            #expect(try await other.next() != nil)
            let statistics = try await server.statistics()
            #expect(statistics.received == flood + 1)
            #expect(statistics.replied == 2 + 1)
            // The first over-limit request and one in 16 after: 0, 16, …, 192.
            #expect(statistics.kissesSent == 13, "kissed \(statistics.kissesSent) of \(flood - 2)")
            #expect(statistics.dropped == [.rateLimited: flood - 2 - 13])
            let replyBytes = (statistics.replied - 1 + statistics.kissesSent) * NTPPacket.headerSize
            #expect(Double(replyBytes) / Double(flood * request.count) < 0.2)
            // The flooder's first two datagrams back are replies, the third a kiss.
            var kiss: NTPPacket?
            for _ in 0..<3 {
                guard let bytes = try await flooder.next() else { break }
                kiss = try NTPPacket(decoding: bytes)
            }
            let rate = try #require(kiss)
            #expect(rate.stratum == 0 && rate.referenceID == .rate)
            #expect(rate.poll == 10)
        }
    }
}

/// A UDP socket on loopback that sends raw bytes and collects whatever comes back.
final class UDPProbe: Sendable {
    let channel: any Channel
    private let datagrams: AsyncStream<[UInt8]>
    private let continuation: AsyncStream<[UInt8]>.Continuation

    private init(channel: any Channel, datagrams: AsyncStream<[UInt8]>, continuation: AsyncStream<[UInt8]>.Continuation) {
        self.channel = channel
        self.datagrams = datagrams
        self.continuation = continuation
    }

    /// Binds a socket to `host` (any 127.x.y.z address is this machine's on Linux), port 0.
    static func bind(host: String) async throws -> UDPProbe {
        let (stream, continuation) = AsyncStream.makeStream(of: [UInt8].self)
        let channel = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(Collector(continuation: continuation))
                }
            }
            .bind(host: host, port: 0).get()
        return UDPProbe(channel: channel, datagrams: stream, continuation: continuation)
    }

    func send(_ bytes: [UInt8], to address: SocketAddress) async throws {
        try await channel.writeAndFlush(AddressedEnvelope(remoteAddress: address, data: ByteBuffer(bytes: bytes)))
    }

    /// The next datagram received, or `nil` after `timeout` without one.
    func next(timeout: Duration = .seconds(2)) async throws -> [UInt8]? {
        let continuation = self.continuation
        let deadline = channel.eventLoop.scheduleTask(in: .nanoseconds(Int64(timeout.nanosecondsClamped))) { continuation.finish() }
        defer { deadline.cancel() }
        for await datagram in datagrams { return datagram }
        return nil
    }

    func close() {
        continuation.finish()
        channel.close(promise: nil)
    }
}
#endif
