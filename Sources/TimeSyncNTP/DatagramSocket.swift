#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
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

/// Stamps each incoming datagram and hands it to an `AsyncThrowingStream`.
final class DatagramStampingHandler: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>

    private let timeBase: any TimeBase
    private let continuation: AsyncThrowingStream<ReceivedDatagram, any Error>.Continuation

    init(timeBase: any TimeBase, continuation: AsyncThrowingStream<ReceivedDatagram, any Error>.Continuation) {
        self.timeBase = timeBase
        self.continuation = continuation
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let receivedAt = timeBase.monotonicNow()
        let envelope = unwrapInboundIn(data)
        // A datagram that filled the receive buffer was cut by the kernel: never parse part of one.
        guard envelope.data.readableBytes <= DatagramSocket.maximumDatagramSize else { return }
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
        // The socket is connected to the server, so the kernel reports an ICMP port unreachable as
        // ECONNREFUSED on the next read: nobody listens there, and waiting on is pointless.
        if let error = error as? IOError, error.errnoCode == ECONNREFUSED {
            continuation.finish(throwing: NTPClientError(.unreachable, "port unreachable"))
        }
    }
}

/// A UDP socket on an ephemeral port, connected to one server (so the kernel filters other senders
/// and reports ICMP errors), whose datagrams arrive as an `AsyncThrowingStream`.
struct DatagramSocket: Sendable {
    /// The largest datagram accepted whole; the socket reads one byte more, so a longer one is seen
    /// to be cut and dropped.
    static let maximumDatagramSize = 2048

    let channel: any Channel
    let datagrams: AsyncThrowingStream<ReceivedDatagram, any Error>

    /// Opens a socket of the address family of `remote`, connected to it.
    static func connect(
        to remote: SocketAddress, group: any EventLoopGroup, timeBase: any TimeBase
    ) async throws -> DatagramSocket {
        let (stream, continuation) = AsyncThrowingStream.makeStream(
            of: ReceivedDatagram.self, throwing: (any Error).self, bufferingPolicy: .bufferingNewest(64))
        let channel = try await DatagramBootstrap(group: group)
            .channelOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: maximumDatagramSize + 1))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        DatagramStampingHandler(timeBase: timeBase, continuation: continuation))
                }
            }
            .connect(to: remote).get()
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
        return HostPort.format(host: ip, port: self.port ?? 0)
    }
}
