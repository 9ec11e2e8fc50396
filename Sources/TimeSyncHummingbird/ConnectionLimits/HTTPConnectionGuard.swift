#if Hummingbird
import NIOCore
import NIOHTTP1
import TimeSync

/// The open connections of one server behind a lock: the caps of ``HTTPConnectionLimits`` shared
/// by every event loop's connections.
package final class HTTPConnectionRegistry: Sendable {
    private let table: Locked<HTTPConnectionTable<any Channel>>
    private let listeners = Locked<[ObjectIdentifier]>([])
    private let ipv6PrefixLength: Int

    /// An empty registry.
    package init(limits: HTTPConnectionLimits) {
        table = Locked(HTTPConnectionTable(limits: limits))
        ipv6PrefixLength = limits.ipv6ClientPrefixLength
    }

    /// Once `listener` (the listening socket the connections came from) closes, closes the input of
    /// every open connection: each finishes the response it is writing, then closes.
    func endConnections(whenClosed listener: any Channel) {
        let first = listeners.withLock { known in
            guard !known.contains(ObjectIdentifier(listener)) else { return false }
            known.append(ObjectIdentifier(listener))
            return true
        }
        guard first else { return }
        listener.closeFuture.whenComplete { [table] _ in
            for channel in table.withLock({ $0.handles }) { channel.close(mode: .input, promise: nil) }
        }
    }

    /// Connections open.
    package var count: Int { table.withLock { $0.count } }

    /// Takes a new connection (closing the one waiting longest for a request when the server is
    /// full), or says to close it.
    /// - Returns: Its ID in the registry, or `nil` when it must be closed at once.
    func admit(_ channel: any Channel) -> HTTPConnectionTable<any Channel>.ID? {
        let admission = table.withLock { $0.admit(channel, from: HTTPClientAddress(channel.remoteAddress, ipv6PrefixLength: ipv6PrefixLength)) }
        switch admission {
        case .admitted(let id):
            return id
        case .admittedClosing(let id, let oldest):
            oldest.close(promise: nil)
            return id
        case .overAddressLimit, .full:
            return nil
        }
    }

    func remove(_ id: HTTPConnectionTable<any Channel>.ID) {
        table.withLock { $0.remove(id) }
    }

    func setWaiting(_ id: HTTPConnectionTable<any Channel>.ID, _ isWaiting: Bool) {
        table.withLock { $0.setClosable(id, isWaiting) }
    }
}

/// Watches one connection's raw bytes (at the head of its pipeline) and decoded request parts and
/// finished responses (right after the HTTP/1 decoder), and closes it when its
/// ``HTTPConnectionTimer`` expires. Both handlers share one watch; all of it runs on the
/// connection's event loop.
final class HTTPConnectionWatch {
    private let limits: HTTPConnectionLimits
    private let registry: HTTPConnectionRegistry
    private let id: HTTPConnectionTable<any Channel>.ID
    private var timer: HTTPConnectionTimer?
    private var scheduled: (deadline: NIODeadline, task: Scheduled<Void>)?
    private var reportedWaiting = true
    private var channel: (any Channel)?

    init(limits: HTTPConnectionLimits, registry: HTTPConnectionRegistry, id: HTTPConnectionTable<any Channel>.ID) {
        self.limits = limits
        self.registry = registry
        self.id = id
    }

    /// The connection is open: the first head is due.
    func start(_ channel: any Channel) {
        guard timer == nil, channel.isActive else { return }
        self.channel = channel
        timer = HTTPConnectionTimer(openedAt: .now(), limits: limits)
        update()
    }

    func stop() {
        scheduled?.task.cancel()
        scheduled = nil
        channel = nil
    }

    func bytesRead() { change { $0.bytesRead(at: .now()) } }
    func headRead() { change { $0.headRead() } }
    func endRead() { change { $0.endRead() } }
    func responseFinished() { change { $0.responseFinished(at: .now()) } }

    private func change(_ body: (inout HTTPConnectionTimer) -> Void) {
        guard timer != nil else { return }
        body(&timer!)
        update()
    }

    /// Tells the registry whether the connection waits, and keeps one task scheduled no later than
    /// the deadline.
    private func update() {
        guard let timer, let channel else { return }
        if timer.isWaiting != reportedWaiting {
            reportedWaiting = timer.isWaiting
            registry.setWaiting(id, reportedWaiting)
        }
        guard let deadline = timer.deadline else { return }
        if let scheduled, scheduled.deadline <= deadline { return }
        scheduled?.task.cancel()
        let task = channel.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in
            scheduled = nil
            guard let timer = self.timer else { return }
            if timer.hasExpired(at: .now()) {
                self.channel?.close(promise: nil)
            } else {
                update()
            }
        }
        scheduled = (deadline, task)
    }
}

@available(*, unavailable)
extension HTTPConnectionWatch: Sendable {}

/// At the head of the pipeline: every read is a byte of the connection's traffic.
final class HTTPConnectionBytesHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let watch: HTTPConnectionWatch

    init(watch: HTTPConnectionWatch) { self.watch = watch }

    func handlerAdded(context: ChannelHandlerContext) { watch.start(context.channel) }
    func channelActive(context: ChannelHandlerContext) {
        watch.start(context.channel)
        context.fireChannelActive()
    }
    func channelInactive(context: ChannelHandlerContext) {
        watch.stop()
        context.fireChannelInactive()
    }
    func handlerRemoved(context: ChannelHandlerContext) { watch.stop() }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        watch.bytesRead()
        context.fireChannelRead(data)
    }
}

@available(*, unavailable)
extension HTTPConnectionBytesHandler: Sendable {}

/// Right after the HTTP/1 decoder: request heads and ends in, response ends out.
final class HTTPConnectionPartsHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let watch: HTTPConnectionWatch

    init(watch: HTTPConnectionWatch) { self.watch = watch }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch Self.unwrapInboundIn(data) {
        case .head: watch.headRead()
        case .end: watch.endRead()
        case .body: break
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = Self.unwrapOutboundIn(data) { watch.responseFinished() }
        context.write(data, promise: promise)
    }
}

@available(*, unavailable)
extension HTTPConnectionPartsHandler: Sendable {}
#endif
