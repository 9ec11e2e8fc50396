import Logging
import Metrics
import NIOCore
import NIOPosix
import ServiceLifecycle
import TimeSync

/// The settings of an ``NTPServer``.
public struct NTPServerConfiguration: Sendable, Hashable {
    /// What to do with a request over the client's rate limit.
    public enum OverLimitAction: Sendable, Hashable {
        /// Answer with a Kiss-o'-Death `RATE`.
        case kissOfDeath
        /// Drop it silently.
        case drop
    }

    /// The address to bind (default `127.0.0.1`; `::` or `0.0.0.0` for every interface).
    public var host: String
    /// The UDP port (default 123; 0 picks a free one, see ``NTPServer/localAddress()``).
    public var port: Int
    /// Stratum, reference identifier, precision, root delay and dispersion advertised.
    public var policy: NTPServerPolicy
    /// Sustained requests per second per client address (default 1); `.infinity` turns the limit off.
    public var rateLimit: Double
    /// Requests a client address may send back to back (default 8: an `iburst` and then some).
    public var rateLimitBurst: Double
    /// What happens over the limit (default: Kiss-o'-Death `RATE`).
    public var overLimitAction: OverLimitAction

    /// Creates a configuration.
    public init(
        host: String = "127.0.0.1", port: Int = 123, policy: NTPServerPolicy = .init(), rateLimit: Double = 1,
        rateLimitBurst: Double = 8, overLimitAction: OverLimitAction = .kissOfDeath
    ) {
        self.host = host
        self.port = port
        self.policy = policy
        self.rateLimit = rateLimit
        self.rateLimitBurst = rateLimitBurst
        self.overLimitAction = overLimitAction
    }
}

/// What an ``NTPServer`` has done since it started.
public struct NTPServerStatistics: Sendable, Hashable {
    /// Datagrams received.
    public var received = 0
    /// Replies sent (not counting kisses).
    public var replied = 0
    /// Kiss-o'-Death `RATE` replies sent.
    public var kissesSent = 0
    /// Datagrams not answered, by reason.
    public var dropped: [NTPServerDropReason: Int] = [:]

    /// All datagrams not answered.
    public var droppedTotal: Int { dropped.values.reduce(0, +) }
}

/// An NTP server over UDP: answers mode-3 requests with mode-4 replies stamped from the time base's
/// wall clock, rate-limits each client address with a token bucket, and ignores everything else.
///
/// A ServiceLifecycle `Service`: ``run()`` binds, serves until graceful shutdown (SIGINT/SIGTERM in a
/// `ServiceGroup`) or cancellation, then closes the socket. Counters go to swift-metrics
/// (`timesync_ntp_server_received`, `…_replied`, `…_kisses`, `…_dropped` with a `reason`
/// dimension) and are also readable with ``statistics()``.
///
/// The receive timestamp is read as the first thing in the channel handler's `channelRead`, the
/// transmit timestamp just before the reply is written.
public final class NTPServer: Service, Sendable {
    /// The configuration.
    public let configuration: NTPServerConfiguration
    private let timeBase: any TimeBase
    private let eventLoop: any EventLoop
    private let logger: Logger
    private let state: NIOLoopBoundBox<NTPServerState>
    private let binding = BindingWaiter()

    /// Creates a server; nothing is bound until ``run()``.
    /// - Parameters:
    ///   - configuration: Address, advertised clock quality and rate limit.
    ///   - timeBase: The clocks: wall for timestamps, monotonic for the rate limiter.
    ///   - group: The event loops (default: NIO's shared singleton); the server uses one of them.
    ///   - logger: The logger (default: discards everything).
    ///   - metricsFactory: Where the counters go (default: the bootstrapped metrics system).
    public init(
        configuration: NTPServerConfiguration, timeBase: any TimeBase = SystemTimeBase(),
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton, logger: Logger = .ntpNoOp,
        metricsFactory: any MetricsFactory = MetricsSystem.factory
    ) {
        self.configuration = configuration
        self.timeBase = timeBase
        self.eventLoop = group.next()
        self.logger = logger
        self.state = .makeBoxSendingValue(
            NTPServerState(configuration: configuration, metricsFactory: metricsFactory), eventLoop: eventLoop)
    }

    /// Binds the socket and serves until graceful shutdown or cancellation.
    /// - Throws: The bind error (address in use, permission denied for port 123, …).
    public func run() async throws {
        let channel: any Channel
        do {
            let state = self.state
            let timeBase = self.timeBase
            let logger = self.logger
            channel = try await DatagramBootstrap(group: eventLoop)
                // Read up to 32 datagrams per system call (recvmmsg); replies written in one read
                // burst go out together on the flush at the end of it (sendmmsg).
                .channelOption(.datagramVectorReadMessageCount, value: 32)
                .channelOption(.maxMessagesPerRead, value: 8)
                .channelOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: 32 * 2048))
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(
                            NTPServerHandler(state: state, timeBase: timeBase, logger: logger))
                    }
                }
                .bind(host: configuration.host, port: configuration.port).get()
        } catch {
            logger.error("NTP server could not bind", metadata: ["host": .string("\(configuration.host)"), "port": .string("\(configuration.port)"), "error": .string("\(error)")])
            await binding.fail(error)
            throw error
        }
        let address = channel.localAddress!
        await binding.succeed(address)
        logger.info("NTP server listening", metadata: ["address": .string("\(address.endpoint)"), "stratum": .string("\(configuration.policy.stratum)")])
        try await withTaskCancellationHandler {
            try await withGracefulShutdownHandler {
                try await channel.closeFuture.get()
            } onGracefulShutdown: {
                channel.close(promise: nil)
            }
        } onCancel: {
            channel.close(promise: nil)
        }
        logger.info("NTP server stopped", metadata: ["address": .string("\(address.endpoint)")])
    }

    /// The bound address, once ``run()`` has bound the socket (waits until then).
    /// - Throws: The bind error if binding failed.
    public func localAddress() async throws -> SocketAddress {
        try await binding.wait()
    }

    /// The counters so far.
    public func statistics() async throws -> NTPServerStatistics {
        let state = self.state
        return try await eventLoop.submit { state.value.statistics }.get()
    }
}

/// The server's mutable state, confined to its event loop.
struct NTPServerState: Sendable {
    var configuration: NTPServerConfiguration
    var limiter: NTPRateLimiter<String>
    var statistics = NTPServerStatistics()
    let receivedCounter: Counter
    let repliedCounter: Counter
    let kissCounter: Counter
    let droppedCounters: [NTPServerDropReason: Counter]

    init(configuration: NTPServerConfiguration, metricsFactory: any MetricsFactory) {
        self.configuration = configuration
        limiter = NTPRateLimiter(rate: configuration.rateLimit, burst: configuration.rateLimitBurst)
        receivedCounter = Counter(label: "timesync_ntp_server_received", factory: metricsFactory)
        repliedCounter = Counter(label: "timesync_ntp_server_replied", factory: metricsFactory)
        kissCounter = Counter(label: "timesync_ntp_server_kisses", dimensions: [("code", "RATE")], factory: metricsFactory)
        var dropped: [NTPServerDropReason: Counter] = [:]
        for reason in NTPServerDropReason.allCases {
            dropped[reason] = Counter(
                label: "timesync_ntp_server_dropped", dimensions: [("reason", reason.rawValue)], factory: metricsFactory)
        }
        droppedCounters = dropped
    }

    mutating func drop(_ reason: NTPServerDropReason) {
        statistics.dropped[reason, default: 0] += 1
        droppedCounters[reason]?.increment()
    }
}

/// Answers requests; runs on the server's event loop.
final class NTPServerHandler: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    typealias OutboundOut = AddressedEnvelope<ByteBuffer>

    private let state: NIOLoopBoundBox<NTPServerState>
    private let timeBase: any TimeBase
    private let logger: Logger

    init(state: NIOLoopBoundBox<NTPServerState>, timeBase: any TimeBase, logger: Logger) {
        self.state = state
        self.timeBase = timeBase
        self.logger = logger
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let receivedAt = timeBase.wallNow()
        let arrival = timeBase.monotonicNow()
        let envelope = unwrapInboundIn(data)
        let requestSize = envelope.data.readableBytes
        state.value.statistics.received += 1
        state.value.receivedCounter.increment()
        let request: NTPPacket
        switch NTPServerResponder.check(envelope.data.readableBytesView) {
        case .drop(let reason):
            state.value.drop(reason)
            logger.trace("NTP request dropped", metadata: ["client": .string("\(envelope.remoteAddress.endpoint)"), "reason": .string("\(reason)")])
            return
        case .answer(let packet):
            request = packet
        }
        let reply: NTPPacket
        let unlimited = state.value.configuration.rateLimit == .infinity
        if unlimited || state.value.limiter.admit(envelope.remoteAddress.ipAddress ?? "\(envelope.remoteAddress)", at: arrival) {
            let configuration = state.value.configuration
            let transmitAt = timeBase.wallNow()
            reply = NTPServerResponder.reply(
                to: request, policy: configuration.policy, receivedAt: receivedAt, transmitAt: transmitAt)
            state.value.statistics.replied += 1
            state.value.repliedCounter.increment()
        } else if state.value.configuration.overLimitAction == .kissOfDeath {
            reply = NTPServerResponder.kiss(.rate, to: request)
            state.value.statistics.kissesSent += 1
            state.value.kissCounter.increment()
            logger.debug("NTP client over its rate limit: RATE", metadata: ["client": .string("\(envelope.remoteAddress)")])
        } else {
            state.value.drop(.rateLimited)
            return
        }
        let bytes = reply.encoded()
        guard bytes.count <= requestSize else {
            state.value.drop(.replyTooLarge)
            return
        }
        context.write(
            wrapOutboundOut(AddressedEnvelope(remoteAddress: envelope.remoteAddress, data: context.channel.allocator.buffer(bytes: bytes))),
            promise: nil)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        context.flush()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A UDP socket surfaces ICMP errors from earlier sends here; the server keeps serving.
        logger.debug("NTP server socket error", metadata: ["error": .string("\(error)")])
    }
}

/// Lets callers wait for the server's bound address.
actor BindingWaiter {
    private var result: Result<SocketAddress, any Error>?
    private var waiters: [CheckedContinuation<SocketAddress, any Error>] = []

    func succeed(_ address: SocketAddress) { complete(.success(address)) }
    func fail(_ error: any Error) { complete(.failure(error)) }

    private func complete(_ result: Result<SocketAddress, any Error>) {
        self.result = result
        for waiter in waiters { waiter.resume(with: result) }
        waiters = []
    }

    func wait() async throws -> SocketAddress {
        if let result { return try result.get() }
        return try await withCheckedThrowingContinuation { waiters.append($0) }
    }
}
