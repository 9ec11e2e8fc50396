#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Logging
import Metrics
import NIOCore
import NIOPosix
import ServiceLifecycle
import TimeSync

/// An NTP server over UDP: answers mode-3 requests with mode-4 replies stamped from the time base's
/// wall clock, rate-limits each client address with a token bucket, and ignores everything else.
///
/// Replies tell the truth about the clock: their leap indicator, stratum and root dispersion come
/// from the host's kernel clock discipline (``NTPServerConfiguration/PolicySource/kernel``), so an
/// unsynchronized host answers leap indicator 3, stratum 16 unless the operator opts in with
/// ``NTPServerConfiguration/localStratum``. ``run()`` refuses a port another process already serves
/// (``NTPServerError/addressInUse``) rather than share it.
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
    private let kernelClock: any KernelClock
    private let logger: Logger
    /// One per socket, each confined to its own event loop.
    private let states: [NIOLoopBoundBox<NTPServerState>]
    private let binding = BindingWaiter()

    /// Creates a server; nothing is bound until ``run()``.
    /// - Parameters:
    ///   - configuration: Address, advertised clock quality, rate limit and number of sockets.
    ///   - timeBase: The clocks: wall for timestamps, monotonic for the rate limiter.
    ///   - kernelClock: Where the served clock's state comes from with ``NTPServerConfiguration/PolicySource/kernel``
    ///     (default: this host's kernel); read at most once a second per socket.
    ///   - group: The event loops (default: NIO's shared singleton); each socket takes the next one.
    ///   - logger: The logger (default: discards everything).
    ///   - metricsFactory: Where the counters go (default: the bootstrapped metrics system).
    public init(
        configuration: NTPServerConfiguration, timeBase: any TimeBase = SystemTimeBase(),
        kernelClock: any KernelClock = SystemKernelClock(),
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton, logger: Logger = .ntpNoOp,
        metricsFactory: any MetricsFactory = MetricsSystem.factory
    ) {
        self.configuration = configuration
        self.timeBase = timeBase
        self.kernelClock = kernelClock
        self.logger = logger
        let counters = NTPServerCounters(metricsFactory: metricsFactory)
        let limiter = NTPServerLimiter(configuration: configuration)
        self.states = (0..<max(1, configuration.threads)).map { _ in
            .makeBoxSendingValue(
                NTPServerState(configuration: configuration, counters: counters, limiter: limiter, kernelClock: kernelClock),
                eventLoop: group.next())
        }
    }

    /// Binds the socket(s) and serves until graceful shutdown or cancellation.
    ///
    /// Several sockets share the port with `SO_REUSEPORT`, which another process's socket with the
    /// option (chronyd's, say) would join without a word, splitting the clients between the two
    /// servers: so the port is first bound alone, without the option, and let go.
    /// - Throws: ``NTPServerError/addressInUse`` when another socket serves the address and port;
    ///   other bind errors (permission denied for port 123, …) as they are.
    public func run() async throws {
        var channels: [any Channel] = []
        var port = configuration.port
        do {
            var attempts = 0
            while true {
                attempts += 1
                if states.count > 1 { port = try await probeExclusively(port: configuration.port) }
                do {
                    for state in states {
                        let channel = try await bind(state: state, port: port)
                        channels.append(channel)
                        port = channel.localAddress?.port ?? port  // port 0: the rest join the one picked
                    }
                    break
                } catch let error as IOError
                    where error.errnoCode == EADDRINUSE && configuration.port == 0 && states.count > 1 && attempts < 8
                {
                    // Port 0: some other socket was given the free port between the probe and the
                    // bind. Any free port will do: probe again.
                    for channel in channels { channel.close(promise: nil) }
                    channels = []
                }
            }
        } catch {
            for channel in channels { channel.close(promise: nil) }
            var failure = error
            if let error = error as? IOError, error.errnoCode == EADDRINUSE {
                failure = NTPServerError(.addressInUse, host: configuration.host, port: port)
            }
            logger.error("NTP server could not bind", metadata: ["host": .string("\(configuration.host)"), "port": .string("\(port)"), "error": .string("\(failure)")])
            binding.fail(failure)
            throw failure
        }
        let address = channels[0].localAddress!
        // Read before announcing the address, so whoever waits on it sees every later read.
        let clockState = configuration.policySource == .kernel ? kernelClock.clockState() : nil
        let policy = configuration.advertisedPolicy(clockState: clockState)
        binding.succeed(address)
        logger.info("NTP server listening", metadata: [
            "address": .string("\(address.endpoint)"), "stratum": .string("\(policy.stratum)"),
            "leap": .string("\(policy.leap)"), "rootDispersion": .string("\(policy.rootDispersion)"),
            "sockets": .stringConvertible(channels.count),
        ])
        if policy.leap == .unsynchronized {
            logger.warning(
                "this host's clock is not synchronized: replies say so (leap indicator 3, stratum 16) and clients will not use them; set a local stratum to serve it anyway",
                metadata: ["maxerror": .string("\((clockState ?? .unknown).maximumError)")])
        }
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

    /// Binds `port` (0: a free one) on the configured address without `SO_REUSEPORT` or
    /// `SO_REUSEADDR`, and closes the socket: this fails with `EADDRINUSE` when any other socket
    /// holds the port, shared or not.
    /// - Returns: The port, the one the kernel picked for 0.
    private func probeExclusively(port: Int) async throws -> Int {
        let probe = try await DatagramBootstrap(group: states[0].eventLoop).bind(host: configuration.host, port: port).get()
        let bound = probe.localAddress?.port ?? port
        try await probe.close()
        return bound
    }

    private func bind(state: NIOLoopBoundBox<NTPServerState>, port: Int) async throws -> any Channel {
        let timeBase = self.timeBase
        let logger = self.logger
        var bootstrap = DatagramBootstrap(group: state.eventLoop)
            // Read up to 32 datagrams per system call (recvmmsg); replies written in one read burst
            // go out together on the flush at the end of it (sendmmsg).
            .channelOption(.datagramVectorReadMessageCount, value: 32)
            .channelOption(.maxMessagesPerRead, value: 8)
            // Each datagram gets capacity / 32 bytes (NIO rounds the capacity up to a power of two):
            // 4096, more than the largest request answered, so one cut to its slot is still too
            // large and is dropped (`oversize`), never parsed as if whole.
            .channelOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: 32 * 4096))
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
/// client's requests from different source ports to different sockets. The table's hash is keyed
/// by a random seed, so that nobody can aim many addresses at one of its buckets.
final class NTPServerLimiter: Sendable {
    private let buckets: Locked<NTPRateLimiter<NTPRateLimitKey>>
    /// No limit: every request is admitted without taking the lock.
    private let unlimited: Bool
    /// The least poll exponent replies and kisses advertise.
    let minimumPoll: Int8

    init(configuration: NTPServerConfiguration) {
        let limiter = NTPRateLimiter<NTPRateLimitKey>(
            rate: configuration.rateLimit, burst: configuration.rateLimitBurst,
            kissEvery: configuration.overLimitAction == .kissOfDeath ? configuration.rateLimitKissEvery : 0,
            seed: .random(in: .min ... .max))
        unlimited = limiter.rate == .infinity
        minimumPoll = limiter.minimumPoll
        buckets = Locked(limiter)
    }

    func decide(_ client: NTPRateLimitKey, at time: MonotonicInstant) -> NTPRateLimitDecision {
        if unlimited { return .admit }
        return buckets.withLock { $0.decide(client, at: time) }
    }

}

extension NTPRateLimitKey {
    /// A client's IP address, without the port, as a compact key (no string per request).
    init(_ address: SocketAddress) {
        switch address {
        case .v4(let v4):
            self.init(ipv4: UInt32(bigEndian: v4.address.sin_addr.s_addr))
        case .v6(let v6):
            let (high, low) = withUnsafeBytes(of: v6.address.sin6_addr) {
                (UInt64(bigEndian: $0.loadUnaligned(as: UInt64.self)), UInt64(bigEndian: $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
            }
            self.init(high: high, low: low)
        case .unixDomainSocket:
            self.init(high: .max, low: .max)
        }
    }
}

/// One socket's mutable state, confined to its event loop. Counts go to the shared swift-metrics
/// counters once per read burst.
struct NTPServerState: Sendable {
    let configuration: NTPServerConfiguration
    let counters: NTPServerCounters
    let limiter: NTPServerLimiter
    let kernelClock: any KernelClock
    var statistics = NTPServerStatistics()
    /// Counted since the last ``flushCounters()``.
    private var pending = NTPServerStatistics()
    /// What replies advertise: the configuration's policy for the kernel's clock state, read again
    /// by ``refreshPolicy(at:)`` once ``policyExpiry`` has passed.
    private(set) var policy: NTPServerPolicy
    /// When ``policy`` is next read again; `nil` before the first datagram.
    private var policyExpiry: MonotonicInstant?
    /// How long a reading of the kernel's clock state is used: its maximum error grows by 500 µs a
    /// second, and a daemon updates it every few seconds at most, so a second stale is nothing.
    static let policyLifetime: Duration = .seconds(1)

    init(configuration: NTPServerConfiguration, counters: NTPServerCounters, limiter: NTPServerLimiter, kernelClock: any KernelClock) {
        self.configuration = configuration
        self.counters = counters
        self.limiter = limiter
        self.kernelClock = kernelClock
        self.policy = configuration.policy
    }

    /// Reads the kernel's clock state again if the last reading is ``policyLifetime`` old (or there
    /// is none yet): one system call a second per socket at most, not one per datagram.
    mutating func refreshPolicy(at now: MonotonicInstant) {
        if let policyExpiry, now < policyExpiry { return }
        let clockState = configuration.policySource == .kernel ? kernelClock.clockState() : nil
        policy = configuration.advertisedPolicy(clockState: clockState)
        policyExpiry = now.advanced(by: Self.policyLifetime)
    }

    /// Judges one datagram by the core's request policy, counting the outcome.
    mutating func respond(
        to bytes: UnsafeRawBufferPointer, from client: SocketAddress, receivedAt: UnixTime, arrival: MonotonicInstant,
        timeBase: any TimeBase
    ) -> NTPServerAction {
        pending.received += 1
        refreshPolicy(at: arrival)
        let limiter = self.limiter
        let action = NTPServerResponder.respond(
            to: bytes, policy: policy, receivedAt: receivedAt,
            admit: { limiter.decide(NTPRateLimitKey(client), at: arrival) }, minimumPoll: limiter.minimumPoll,
            transmitAt: { timeBase.wallNow() })
        switch action {
        case .reply: pending.replied += 1
        case .kiss: pending.kissesSent += 1
        case .drop(let reason): pending.dropped[reason, default: 0] += 1
        }
        return action
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
final class BindingWaiter: Sendable {
    private let result = Locked<Result<SocketAddress, any Error>?>(nil)
    private let waiters = Waiters()

    func succeed(_ address: SocketAddress) { complete(.success(address)) }
    func fail(_ error: any Error) { complete(.failure(error)) }

    private func complete(_ outcome: Result<SocketAddress, any Error>) {
        result.withLock { $0 = outcome }
        waiters.wakeAll()
    }

    func wait() async throws -> SocketAddress {
        try await waiters.wait { result.withLock { $0 } }.get()
    }
}
