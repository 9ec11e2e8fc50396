#if NTS
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS
import ServiceLifecycle
import TimeSync
import TimeSyncWire

/// Reads one request, answers it, closes.
final class NTSKEServerHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// The most bytes a request may take.
    static let maximumRequestSize = 1024

    private let server: NTSKEServer
    private let secret: NIOLockedValueBox<[UInt8]?>
    private let timeout: Duration
    private let connection: NTSKEConnectionTable<any Channel>.ID?
    private var decoder = NTSKERecordDecoder(maximumMessageSize: maximumRequestSize)
    private var timer: Scheduled<Void>?
    private var done = false

    init(server: NTSKEServer, secret: NIOLockedValueBox<[UInt8]?>, timeout: Duration, connection: NTSKEConnectionTable<any Channel>.ID? = nil) {
        self.server = server
        self.secret = secret
        self.timeout = timeout
        self.connection = connection
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let channel = context.channel
        let server = self.server
        timer = context.eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(Int64(timeout.nanosecondsClamped))) { [self] in
            guard !done else { return }
            done = true
            server.connectionTimedOut()
            channel.close(promise: nil)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case TLSUserEvent.handshakeCompleted(let negotiated) = event, negotiated != NTSKeyExchange.applicationProtocol {
            fail(context: context, NTSKEError(.noApplicationProtocol, "the client offered no ntske/1"))
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !done else { return }
        let buffer = unwrapInboundIn(data)
        do {
            try decoder.append(buffer.readableBytesView)
        } catch {
            answer(context: context, server.refusal(error))
            return
        }
        guard decoder.isComplete else { return }
        answer(context: context, server.respond(to: decoder.records, exporterSecret: secret.withLockedValue { $0 }))
    }

    func channelInactive(context: ChannelHandlerContext) {
        if !done { fail(context: context, NTSKEError(.incompleteMessage)) }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail(context: context, error)
    }

    private func answer(context: ChannelHandlerContext, _ records: [NTSKERecord]) {
        done = true
        timer?.cancel()
        if let connection { server.connectionAnswering(connection) }
        let bytes = NTSKERecord.encode(records)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(channel.allocator.buffer(bytes: bytes))).whenComplete { _ in
            channel.close(promise: nil)
        }
    }

    private func fail(context: ChannelHandlerContext, _ error: any Error) {
        guard !done else { return }
        done = true
        server.connectionFailed(error)
        context.close(promise: nil)
    }
}
#endif
