#if CLI
import NIOCore
import NIOPosix
import TimeSync
import TimeSyncTesting

/// How a ``UDPRelay`` mistreats datagrams. Each direction is decided independently per datagram from
/// one seeded generator, so a run is reproducible given the order datagrams arrive in.
public struct UDPRelayConfiguration: Sendable, Hashable {
    /// Fixed delay from client to server.
    public var upstreamDelay: Duration
    /// Fixed delay from server to client.
    public var downstreamDelay: Duration
    /// The mean of an exponentially distributed extra delay for each datagram (queueing; datagrams may
    /// reorder).
    public var jitter: Duration
    /// Probability that a datagram gets a spike on top (exponential, mean ``spikeDelay``).
    public var spikeProbability: Double
    /// The mean extra delay of a spike.
    public var spikeDelay: Duration
    /// Probability that a client-to-server datagram is dropped.
    public var upstreamLoss: Double
    /// Probability that a server-to-client datagram is dropped.
    public var downstreamLoss: Double
    /// Seed of the generator.
    public var seed: UInt64

    /// Creates a configuration; by default the relay forwards everything at once.
    public init(
        upstreamDelay: Duration = .zero, downstreamDelay: Duration = .zero, jitter: Duration = .zero,
        spikeProbability: Double = 0, spikeDelay: Duration = .zero, upstreamLoss: Double = 0,
        downstreamLoss: Double = 0, seed: UInt64 = 0
    ) {
        self.upstreamDelay = max(.zero, upstreamDelay)
        self.downstreamDelay = max(.zero, downstreamDelay)
        self.jitter = max(.zero, jitter)
        self.spikeProbability = min(max(spikeProbability, 0), 1)
        self.spikeDelay = max(.zero, spikeDelay)
        self.upstreamLoss = min(max(upstreamLoss, 0), 1)
        self.downstreamLoss = min(max(downstreamLoss, 0), 1)
        self.seed = seed
    }
}

/// What a ``UDPRelay`` has done.
public struct UDPRelayStatistics: Sendable, Hashable {
    /// Client-to-server datagrams forwarded.
    public var forwardedUpstream = 0
    /// Server-to-client datagrams forwarded.
    public var forwardedDownstream = 0
    /// Client-to-server datagrams dropped.
    public var droppedUpstream = 0
    /// Server-to-client datagrams dropped.
    public var droppedDownstream = 0
    /// Datagrams that got a spike delay.
    public var spikes = 0
}

/// A user-space UDP relay that adds delay, jitter, spikes and loss between a client and a server,
/// for tests and benchmarks on machines without `netem`.
///
/// Clients send to ``localAddress``; each client gets its own upstream socket (like a NAT), so
/// replies find their way back. Everything runs on one event loop, which also owns the seeded
/// generator.
public final class UDPRelay: Sendable {
    /// Where clients send.
    public let localAddress: SocketAddress
    /// The server datagrams are relayed to.
    public let upstream: SocketAddress
    private let listener: any Channel
    private let core: NIOLoopBound<RelayCore>

    private init(localAddress: SocketAddress, upstream: SocketAddress, listener: any Channel, core: NIOLoopBound<RelayCore>) {
        self.localAddress = localAddress
        self.upstream = upstream
        self.listener = listener
        self.core = core
    }

    /// Starts a relay on a free port.
    /// - Parameters:
    ///   - upstream: The server to relay to.
    ///   - configuration: Delays, loss and seed.
    ///   - host: The address to listen on (default `127.0.0.1`).
    ///   - port: The port to listen on (default 0: a free one).
    ///   - group: The event loops (default: NIO's shared singleton); the relay uses one of them.
    /// - Throws: The bind error.
    public static func start(
        upstream: SocketAddress, configuration: UDPRelayConfiguration = .init(), host: String = "127.0.0.1",
        port: Int = 0, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws -> UDPRelay {
        let eventLoop = group.next()
        let core = try await eventLoop.submit {
            NIOLoopBound(RelayCore(configuration: configuration, upstream: upstream, eventLoop: eventLoop), eventLoop: eventLoop)
        }.get()
        let listener = try await DatagramBootstrap(group: eventLoop)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(RelayListenHandler(core: core))
                }
            }
            .bind(host: host, port: port).get()
        try await eventLoop.submit { core.value.listener = listener }.get()
        return UDPRelay(localAddress: listener.localAddress!, upstream: upstream, listener: listener, core: core)
    }

    /// The counts so far.
    public func statistics() async throws -> UDPRelayStatistics {
        let core = self.core
        return try await listener.eventLoop.submit { core.value.statistics }.get()
    }

    /// Closes every socket of the relay; datagrams still delayed are dropped.
    public func close() async throws {
        let core = self.core
        let channels = try await listener.eventLoop.submit { () -> [any Channel] in
            core.value.closed = true
            return Array(core.value.upstreams.values.compactMap(\.channel))
        }.get()
        for channel in channels { try? await channel.close() }
        try? await listener.close()
    }
}

/// The relay's state; lives on its event loop.
final class RelayCore {
    enum Upstream {
        case binding([ByteBuffer])
        case ready(any Channel)

        var channel: (any Channel)? {
            if case .ready(let channel) = self { channel } else { nil }
        }
    }

    let configuration: UDPRelayConfiguration
    let upstream: SocketAddress
    let eventLoop: any EventLoop
    var generator: SeededGenerator
    var statistics = UDPRelayStatistics()
    var listener: (any Channel)?
    var upstreams: [SocketAddress: Upstream] = [:]
    var closed = false

    init(configuration: UDPRelayConfiguration, upstream: SocketAddress, eventLoop: any EventLoop) {
        self.configuration = configuration
        self.upstream = upstream
        self.eventLoop = eventLoop
        self.generator = SeededGenerator(seed: configuration.seed)
    }

    /// The delay for one datagram, or `nil` to drop it.
    func fate(upstream: Bool) -> Duration? {
        let loss = upstream ? configuration.upstreamLoss : configuration.downstreamLoss
        if loss > 0, generator.nextBool(probability: loss) { return nil }
        var delay = upstream ? configuration.upstreamDelay : configuration.downstreamDelay
        let jitter = configuration.jitter.nanosecondsClamped
        if jitter > 0 { delay += .nanoseconds(Int64(generator.nextExponential(mean: Double(jitter)))) }
        if configuration.spikeProbability > 0, generator.nextBool(probability: configuration.spikeProbability) {
            delay += .nanoseconds(Int64(generator.nextExponential(mean: Double(configuration.spikeDelay.nanosecondsClamped))))
            statistics.spikes += 1
        }
        return delay
    }

    func after(_ delay: Duration, _ body: @escaping () -> Void) {
        let nanoseconds = delay.nanosecondsClamped
        if nanoseconds <= 0 {
            body()
        } else {
            eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(nanoseconds)) { body() }
        }
    }

    func fromClient(_ client: SocketAddress, _ data: ByteBuffer) {
        guard !closed else { return }
        guard let delay = fate(upstream: true) else {
            statistics.droppedUpstream += 1
            return
        }
        // A new client's upstream socket is bound now, while its first datagram is in flight: binding
        // takes a while, and a path that charged it to the datagram would delay every client that
        // sends each request from a fresh port (as ours does) and no other.
        if upstreams[client] == nil {
            upstreams[client] = .binding([])
            bindUpstream(for: client)
        }
        after(delay) { self.sendUpstream(for: client, data) }
    }

    func sendUpstream(for client: SocketAddress, _ data: ByteBuffer) {
        guard !closed else { return }
        statistics.forwardedUpstream += 1
        switch upstreams[client] {
        case .ready(let channel):
            channel.writeAndFlush(AddressedEnvelope(remoteAddress: upstream, data: data), promise: nil)
        case .binding(var queue):
            queue.append(data)
            upstreams[client] = .binding(queue)
        case nil:
            upstreams[client] = .binding([data])
            bindUpstream(for: client)
        }
    }

    func bindUpstream(for client: SocketAddress) {
        let bound = NIOLoopBound(self, eventLoop: eventLoop)
        let host: String
        switch upstream {
        case .v6: host = "::"
        default: host = "0.0.0.0"
        }
        DatagramBootstrap(group: eventLoop)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(RelayUpstreamHandler(core: bound, client: client))
                }
            }
            .bind(host: host, port: 0)
            .assumeIsolated()
            .whenComplete { result in
                let core = bound.value
                guard case .binding(let queue) = core.upstreams[client] else { return }
                switch result {
                case .success(let channel):
                    if core.closed {
                        channel.close(promise: nil)
                        return
                    }
                    core.upstreams[client] = .ready(channel)
                    for data in queue {
                        channel.writeAndFlush(AddressedEnvelope(remoteAddress: core.upstream, data: data), promise: nil)
                    }
                case .failure:
                    core.statistics.droppedUpstream += queue.count
                    core.statistics.forwardedUpstream -= queue.count
                    core.upstreams[client] = nil
                }
            }
    }

    func fromServer(to client: SocketAddress, _ data: ByteBuffer) {
        guard !closed else { return }
        guard let delay = fate(upstream: false) else {
            statistics.droppedDownstream += 1
            return
        }
        after(delay) {
            guard !self.closed, let listener = self.listener else { return }
            self.statistics.forwardedDownstream += 1
            listener.writeAndFlush(AddressedEnvelope(remoteAddress: client, data: data), promise: nil)
        }
    }
}

/// Receives from clients.
final class RelayListenHandler: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>

    private let core: NIOLoopBound<RelayCore>

    init(core: NIOLoopBound<RelayCore>) { self.core = core }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = unwrapInboundIn(data)
        core.value.fromClient(envelope.remoteAddress, envelope.data)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {}
}

/// Receives from the server on one client's upstream socket.
final class RelayUpstreamHandler: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>

    private let core: NIOLoopBound<RelayCore>
    private let client: SocketAddress

    init(core: NIOLoopBound<RelayCore>, client: SocketAddress) {
        self.core = core
        self.client = client
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = unwrapInboundIn(data)
        core.value.fromServer(to: client, envelope.data)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {}
}
#endif
