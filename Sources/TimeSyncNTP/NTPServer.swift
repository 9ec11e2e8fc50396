#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Logging
import Metrics
import NIOConcurrencyHelpers
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
    /// Sockets serving the port, each on its own event loop (default 1). Above 1 they share the port
    /// with `SO_REUSEPORT`: the kernel spreads clients over them by address and port, so the server
    /// uses that many cores (chronyd answers on one). The rate limit stays one per client address,
    /// shared by all of them.
    public var threads: Int

    /// The cores this process may run on (its CPU affinity and cgroup quota counted): a ``threads``
    /// value that uses them all.
    public static var availableCores: Int { System.coreCount }

    /// Creates a configuration.
    public init(
        host: String = "127.0.0.1", port: Int = 123, policy: NTPServerPolicy = .init(), rateLimit: Double = 1,
        rateLimitBurst: Double = 8, overLimitAction: OverLimitAction = .kissOfDeath, threads: Int = 1
    ) {
        self.host = host
        self.port = port
        self.policy = policy
        self.rateLimit = rateLimit
        self.rateLimitBurst = rateLimitBurst
        self.overLimitAction = overLimitAction
        self.threads = max(1, threads)
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

    /// Adds another count to this one.
    mutating func add(_ other: NTPServerStatistics) {
        received += other.received
        replied += other.replied
        kissesSent += other.kissesSent
        dropped.merge(other.dropped, uniquingKeysWith: +)
    }
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
/// transmit timestamp just before the reply is written. Each socket reads up to 32 datagrams per
/// system call (`recvmmsg`) and sends the replies of one read burst together (`sendmmsg`);
/// ``NTPServerConfiguration/threads`` sockets share the port to use several cores.
public final class NTPServer: Service, Sendable {
    /// The configuration.
    public let configuration: NTPServerConfiguration
    private let timeBase: any TimeBase
    private let logger: Logger
    /// One per socket, each confined to its own event loop.
    private let states: [NIOLoopBoundBox<NTPServerState>]
    private let binding = BindingWaiter()

    /// Creates a server; nothing is bound until ``run()``.
    /// - Parameters:
    ///   - configuration: Address, advertised clock quality, rate limit and number of sockets.
    ///   - timeBase: The clocks: wall for timestamps, monotonic for the rate limiter.
    ///   - group: The event loops (default: NIO's shared singleton); each socket takes the next one.
    ///   - logger: The logger (default: discards everything).
    ///   - metricsFactory: Where the counters go (default: the bootstrapped metrics system).
    public init(
        configuration: NTPServerConfiguration, timeBase: any TimeBase = SystemTimeBase(),
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton, logger: Logger = .ntpNoOp,
        metricsFactory: any MetricsFactory = MetricsSystem.factory
    ) {
        self.configuration = configuration
        self.timeBase = timeBase
        self.logger = logger
        let counters = NTPServerCounters(metricsFactory: metricsFactory)
        let limiter = NTPServerLimiter(configuration: configuration)
        self.states = (0..<max(1, configuration.threads)).map { _ in
            .makeBoxSendingValue(
                NTPServerState(configuration: configuration, counters: counters, limiter: limiter), eventLoop: group.next())
        }
    }

    /// Binds the socket(s) and serves until graceful shutdown or cancellation.
    /// - Throws: The bind error (address in use, permission denied for port 123, …).
    public func run() async throws {
        var channels: [any Channel] = []
        do {
            var port = configuration.port
            for state in states {
                let channel = try await bind(state: state, port: port)
                channels.append(channel)
                port = channel.localAddress?.port ?? port  // port 0: the rest join the one picked
            }
        } catch {
            for channel in channels { channel.close(promise: nil) }
            logger.error("NTP server could not bind", metadata: ["host": .string("\(configuration.host)"), "port": .string("\(configuration.port)"), "error": .string("\(error)")])
            await binding.fail(error)
            throw error
        }
        let address = channels[0].localAddress!
        await binding.succeed(address)
        logger.info("NTP server listening", metadata: [
            "address": .string("\(address.endpoint)"), "stratum": .string("\(configuration.policy.stratum)"),
            "sockets": .stringConvertible(channels.count),
        ])
        let bound = channels
        let closeAll: @Sendable () -> Void = { for channel in bound { channel.close(promise: nil) } }
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                for channel in bound { try? await channel.closeFuture.get() }
            } onGracefulShutdown: {
                closeAll()
            }
        } onCancel: {
            closeAll()
        }
        logger.info("NTP server stopped", metadata: ["address": .string("\(address.endpoint)")])
    }

    private func bind(state: NIOLoopBoundBox<NTPServerState>, port: Int) async throws -> any Channel {
        let timeBase = self.timeBase
        let logger = self.logger
        var bootstrap = DatagramBootstrap(group: state.eventLoop)
            // Read up to 32 datagrams per system call (recvmmsg); replies written in one read burst
            // go out together on the flush at the end of it (sendmmsg).
            .channelOption(.datagramVectorReadMessageCount, value: 32)
            .channelOption(.maxMessagesPerRead, value: 8)
            .channelOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: 32 * 2048))
        if states.count > 1 {
            bootstrap = bootstrap.channelOption(.socket(SocketOptionLevel(SOL_SOCKET), SO_REUSEPORT), value: 1)
        }
        return try await bootstrap
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        NTPServerHandler(state: state, timeBase: timeBase, logger: logger))
                }
            }
            .bind(host: configuration.host, port: port).get()
    }

    /// The bound address, once ``run()`` has bound the socket (waits until then).
    /// - Throws: The bind error if binding failed.
    public func localAddress() async throws -> SocketAddress {
        try await binding.wait()
    }

    /// The counters so far, summed over the sockets.
    public func statistics() async throws -> NTPServerStatistics {
        var total = NTPServerStatistics()
        for state in states {
            total.add(try await state.eventLoop.submit { state.value.statistics }.get())
        }
        return total
    }
}

/// The swift-metrics counters, shared by every socket of a server (metric handlers are thread-safe).
struct NTPServerCounters: Sendable {
    let received: Counter
    let replied: Counter
    let kisses: Counter
    let dropped: [NTPServerDropReason: Counter]

    init(metricsFactory: any MetricsFactory) {
        received = Counter(label: "timesync_ntp_server_received", factory: metricsFactory)
        replied = Counter(label: "timesync_ntp_server_replied", factory: metricsFactory)
        kisses = Counter(label: "timesync_ntp_server_kisses", dimensions: [("code", "RATE")], factory: metricsFactory)
        var dropped: [NTPServerDropReason: Counter] = [:]
        for reason in NTPServerDropReason.allCases {
            dropped[reason] = Counter(
                label: "timesync_ntp_server_dropped", dimensions: [("reason", reason.rawValue)], factory: metricsFactory)
        }
        self.dropped = dropped
    }
}

/// One token bucket per client address, shared by every socket of a server: the kernel may hand a
/// client's requests from different source ports to different sockets.
final class NTPServerLimiter: Sendable {
    private let buckets: NIOLockedValueBox<NTPRateLimiter<NTPClientKey>>

    init(configuration: NTPServerConfiguration) {
        buckets = NIOLockedValueBox(NTPRateLimiter(rate: configuration.rateLimit, burst: configuration.rateLimitBurst))
    }

    func admit(_ client: NTPClientKey, at time: MonotonicInstant) -> Bool {
        buckets.withLockedValue { $0.admit(client, at: time) }
    }
}

/// A client's IP address, without the port, as a compact key (no string per request).
struct NTPClientKey: Hashable, Sendable {
    let high: UInt64
    let low: UInt64

    init(_ address: SocketAddress) {
        switch address {
        case .v4(let v4):
            high = 0
            low = 1 << 32 | UInt64(UInt32(bigEndian: v4.address.sin_addr.s_addr))
        case .v6(let v6):
            (high, low) = withUnsafeBytes(of: v6.address.sin6_addr) {
                (UInt64(bigEndian: $0.loadUnaligned(as: UInt64.self)), UInt64(bigEndian: $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
            }
        case .unixDomainSocket:
            (high, low) = (.max, .max)
        }
    }
}

/// One socket's mutable state, confined to its event loop. Counts go to the shared swift-metrics
/// counters once per read burst.
struct NTPServerState: Sendable {
    let configuration: NTPServerConfiguration
    let counters: NTPServerCounters
    let limiter: NTPServerLimiter
    var statistics = NTPServerStatistics()
    /// Counted since the last ``flushCounters()``.
    private var pending = NTPServerStatistics()

    init(configuration: NTPServerConfiguration, counters: NTPServerCounters, limiter: NTPServerLimiter) {
        self.configuration = configuration
        self.counters = counters
        self.limiter = limiter
    }

    /// What the server does with one datagram.
    enum Outcome {
        /// Answer with this reply.
        case reply(NTPPacket)
        /// Answer with this Kiss-o'-Death `RATE`: the client is over its limit.
        case kiss(NTPPacket)
        /// Do not answer, for this reason.
        case drop(NTPServerDropReason)
    }

    /// Judges one datagram, counting the outcome.
    mutating func respond(
        to bytes: UnsafeRawBufferPointer, from client: SocketAddress, receivedAt: UnixTime, arrival: MonotonicInstant,
        timeBase: any TimeBase
    ) -> Outcome {
        pending.received += 1
        let outcome = judge(bytes, from: client, receivedAt: receivedAt, arrival: arrival, timeBase: timeBase)
        switch outcome {
        case .reply: pending.replied += 1
        case .kiss: pending.kissesSent += 1
        case .drop(let reason): pending.dropped[reason, default: 0] += 1
        }
        return outcome
    }

    private func judge(
        _ bytes: UnsafeRawBufferPointer, from client: SocketAddress, receivedAt: UnixTime, arrival: MonotonicInstant,
        timeBase: any TimeBase
    ) -> Outcome {
        let request: NTPPacket
        switch NTPServerResponder.check(bytes) {
        case .drop(let reason): return .drop(reason)
        case .answer(let packet): request = packet
        }
        // Replies are bare headers; a request that decoded is at least one, so this holds — checked
        // all the same, as the server promises never to answer with more than it was sent.
        guard NTPPacket.headerSize <= bytes.count else { return .drop(.replyTooLarge) }
        if configuration.rateLimit == .infinity || limiter.admit(NTPClientKey(client), at: arrival) {
            return .reply(NTPServerResponder.reply(
                to: request, policy: configuration.policy, receivedAt: receivedAt, transmitAt: timeBase.wallNow()))
        }
        guard configuration.overLimitAction == .kissOfDeath else { return .drop(.rateLimited) }
        return .kiss(NTPServerResponder.kiss(.rate, to: request))
    }

    /// Adds what was counted since the last flush to the statistics and the metrics.
    mutating func flushCounters() {
        guard pending.received > 0 else { return }  // every outcome counts a received datagram
        statistics.add(pending)
        counters.received.increment(by: pending.received)
        if pending.replied > 0 { counters.replied.increment(by: pending.replied) }
        if pending.kissesSent > 0 { counters.kisses.increment(by: pending.kissesSent) }
        for (reason, count) in pending.dropped { counters.dropped[reason]?.increment(by: count) }
        pending = NTPServerStatistics()
    }
}

/// Answers requests; runs on its socket's event loop.
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
        let timeBase = self.timeBase
        let outcome = envelope.data.withUnsafeReadableBytes { bytes in
            state.value.respond(to: bytes, from: envelope.remoteAddress, receivedAt: receivedAt, arrival: arrival, timeBase: timeBase)
        }
        let reply: NTPPacket
        switch outcome {
        case .reply(let packet):
            reply = packet
        case .kiss(let packet):
            logger.debug("NTP client over its rate limit: RATE", metadata: ["client": .string("\(envelope.remoteAddress)")])
            reply = packet
        case .drop(let reason):
            logger.trace("NTP request dropped", metadata: ["client": .string("\(envelope.remoteAddress.endpoint)"), "reason": .string("\(reason)")])
            return
        }
        var buffer = context.channel.allocator.buffer(capacity: NTPPacket.headerSize)
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: NTPPacket.headerSize) { reply.writeHeader(to: $0) }
        context.write(wrapOutboundOut(AddressedEnvelope(remoteAddress: envelope.remoteAddress, data: buffer)), promise: nil)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        state.value.flushCounters()
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
