import Logging
import NIOCore
import NIOPosix
import TimeSync

/// A datagram as it came off the socket, stamped with the monotonic clock in the channel handler
/// (before any hop to Swift concurrency).
struct ReceivedDatagram: Sendable {
    var remoteAddress: SocketAddress
    var bytes: [UInt8]
    var receivedAt: MonotonicInstant
}

/// Stamps each incoming datagram and hands it to an `AsyncStream`.
final class DatagramStampingHandler: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>

    private let timeBase: any TimeBase
    private let continuation: AsyncStream<ReceivedDatagram>.Continuation

    init(timeBase: any TimeBase, continuation: AsyncStream<ReceivedDatagram>.Continuation) {
        self.timeBase = timeBase
        self.continuation = continuation
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let receivedAt = timeBase.monotonicNow()
        let envelope = unwrapInboundIn(data)
        continuation.yield(
            ReceivedDatagram(
                remoteAddress: envelope.remoteAddress, bytes: Array(envelope.data.readableBytesView),
                receivedAt: receivedAt))
    }

    func channelInactive(context: ChannelHandlerContext) {
        continuation.finish()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A UDP socket reports ICMP errors (port unreachable) on later reads; the exchange times out
        // instead, and the socket stays usable.
    }
}

/// An unconnected UDP socket on an ephemeral port whose datagrams arrive as an `AsyncStream`.
struct DatagramSocket: Sendable {
    let channel: any Channel
    let datagrams: AsyncStream<ReceivedDatagram>

    /// Binds a socket of the address family of `remote` to the wildcard address and port 0.
    static func bind(
        toReach remote: SocketAddress, group: any EventLoopGroup, timeBase: any TimeBase
    ) async throws -> DatagramSocket {
        let (stream, continuation) = AsyncStream.makeStream(
            of: ReceivedDatagram.self, bufferingPolicy: .bufferingNewest(64))
        let host: String
        switch remote {
        case .v6: host = "::"
        default: host = "0.0.0.0"
        }
        let channel = try await DatagramBootstrap(group: group)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        DatagramStampingHandler(timeBase: timeBase, continuation: continuation))
                }
            }
            .bind(host: host, port: 0).get()
        return DatagramSocket(channel: channel, datagrams: stream)
    }

    func close() {
        channel.close(promise: nil)
    }
}

extension SocketAddress {
    /// `ip:port`, with brackets around an IPv6 address: how logs, errors and source names print it.
    var endpoint: String {
        guard let ip = ipAddress else { return "\(self)" }
        let port = self.port ?? 0
        return ip.contains(":") ? "[\(ip)]:\(port)" : "\(ip):\(port)"
    }
}
