#if NTPServer
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
import TimeSyncServerSupport

/// An NTP server over UDP: answers mode-3 requests with mode-4 replies stamped from the time base's
/// wall clock, rate-limits each client address with a token bucket, and ignores everything else.
///
/// Replies tell the truth about the clock: their leap indicator, stratum and root dispersion come
/// from the host's kernel clock discipline (``NTPServerConfiguration/PolicySource/kernel``), so an
/// unsynchronized host answers leap indicator 3, stratum 16 unless the operator opts in with
/// ``NTPServerConfiguration/localStratum``. ``run()`` refuses a port another process already serves
/// (`ServerBindError.addressInUse`) rather than share it.
///
/// A ServiceLifecycle `Service`: ``run()`` binds, serves until graceful shutdown (SIGINT/SIGTERM in a
/// `ServiceGroup`) or cancellation, then closes the socket. Counters go to swift-metrics
/// (`timesync_ntp_server_received`, `…_replied`, `…_kisses`, `…_dropped` with a `reason`
/// dimension) and are also readable with ``statistics()``.
///
/// On Linux (``NTPServerConfiguration/DatagramIO/batched``, the default there) each socket has a
/// thread of its own that reads up to 64 datagrams per system call (`recvmmsg`) into buffers
/// allocated once, answers them and sends the replies with one `sendmmsg`; the receive timestamp is
/// the kernel's (`SO_TIMESTAMPNS`), so time spent queued under load does not count as network delay.
/// Elsewhere, or with ``NTPServerConfiguration/DatagramIO/swiftNIO``, SwiftNIO's datagram channels
/// read up to 32 datagrams per system call and the receive timestamp is read as the first thing in
/// the channel handler's `channelRead`. Either way the transmit timestamp is read just before the
/// reply is written, and ``NTPServerConfiguration/threads`` sockets share the port to use several
/// cores, with one rate limiter whose table is split into shards under separate locks.
public final class NTPServer: Service, Sendable {
    /// The configuration.
    public let configuration: NTPServerConfiguration
    private let timeBase: any TimeBase
    private let kernelClock: any KernelClock
    private let logger: Logger
    /// One per socket, each confined to its own event loop (SwiftNIO) or behind its lock (batched).
    private let sockets: Sockets
    private let binding = BindingWaiter()

    private enum Sockets: Sendable {
        case swiftNIO([NIOLoopBoundBox<NTPServerState>])
        case batched([Locked<NTPServerState>])
    }

    /// Creates a server; nothing is bound until ``run()``.
    /// - Parameters:
    ///   - configuration: Address, advertised clock quality, rate limit and number of sockets.
    ///   - timeBase: The clocks: wall for timestamps, monotonic for the rate limiter.
    ///   - kernelClock: Where the served clock's state comes from with ``NTPServerConfiguration/PolicySource/kernel``
    ///     (default: this host's kernel); read at most once a second per socket.
    ///   - group: The event loops (default: NIO's shared singleton); each socket takes the next one.
    ///   - logger: The logger (default: discards everything).
    ///   - metricsFactory: Where the counters go (default: the bootstrapped metrics system).
    ///   - authenticator: Checks NTS requests and seals their replies (`NTSServerKeys` of
    ///     `TimeSyncNTS`); `nil` (the default) answers every request as plain SNTP.
    public init(
        configuration: NTPServerConfiguration, timeBase: (any TimeBase)? = nil,
        kernelClock: any KernelClock = SystemKernelClock(), authenticator: (any NTPRequestAuthenticator)? = nil,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton, logger: Logger = .ntpNoOp,
        metricsFactory: any MetricsFactory = MetricsSystem.factory
    ) {
        let timeBase = timeBase ?? SystemTimeBase()
        self.configuration = configuration
        self.timeBase = timeBase
        self.kernelClock = kernelClock
        self.logger = logger
        let counters = NTPServerCounters(metricsFactory: metricsFactory)
        let limiter = AddressRateLimiter(configuration: configuration)
        func state() -> NTPServerState {
            NTPServerState(configuration: configuration, counters: counters, limiter: limiter, kernelClock: kernelClock, authenticator: authenticator)
        }
        let count = max(1, configuration.threads)
        #if os(Linux)
        if configuration.datagramIO == .batched {
            sockets = .batched((0..<count).map { _ in Locked(state()) })
            return
        }
        #endif
        sockets = .swiftNIO((0..<count).map { _ in .makeBoxSendingValue(state(), eventLoop: group.next()) })
    }

    /// Binds the socket(s) and serves until graceful shutdown or cancellation.
    ///
    /// Several sockets share the port with `SO_REUSEPORT`, which another process's socket with the
    /// option (chronyd's, say) would join without a word, splitting the clients between the two
    /// servers: so the port is first bound alone, without the option, and let go.
    /// - Throws: `ServerBindError.addressInUse` when another socket serves the address and port;
    ///   other bind errors (permission denied for port 123, …) as they are.
    public func run() async throws {
        switch sockets {
        case .swiftNIO(let states): try await runSwiftNIO(states: states)
        case .batched(let states): try await runBatched(states: states)
        }
    }

    private func runBatched(states: [Locked<NTPServerState>]) async throws {
        #if os(Linux)
        let server: BatchedDatagramSockets
        do {
            server = try BatchedDatagramSockets(configuration: configuration, states: states, timeBase: timeBase, logger: logger)
        } catch {
            throw bindFailed(error, port: configuration.port)
        }
        announce(address: server.address, sockets: states.count, io: "batched")
        server.start()
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                await server.finished()
            } onGracefulShutdown: {
                server.stop()
            }
        } onCancel: {
            server.stop()
        }
        logger.info("NTP server stopped", metadata: ["address": .string("\(server.address.endpoint)")])
        #endif
    }

    /// The error a failed bind throws (`ServerBindError` for the errors it names), told to whoever
    /// waits for the address.
    private func bindFailed(_ error: any Error, port: Int) -> any Error {
        let failure = binding.bindFailed(error, transport: "UDP", host: configuration.host, port: port)
        // The caller gets the error; it is logged only for debugging.
        logger.debug("NTP server could not bind", metadata: ["host": .string("\(configuration.host)"), "port": .string("\(port)"), "error": .string("\(failure)")])
        return failure
    }

    /// Reads the clock's state, lets waiters have the address, and logs that the server listens.
    private func announce(address: SocketAddress, sockets: Int, io: String) {
        // Read before announcing the address, so whoever waits on it sees every later read.
        let clockState = configuration.policySource == .kernel ? kernelClock.clockState() : nil
        let policy = configuration.advertisedPolicy(clockState: clockState)
        binding.succeed(address)
        logger.info("NTP server listening", metadata: [
            "address": .string("\(address.endpoint)"), "stratum": .string("\(policy.stratum)"),
            "leap": .string("\(policy.leap)"), "rootDispersion": .string("\(policy.rootDispersion)"),
            "sockets": .stringConvertible(sockets), "io": .string(io),
        ])
        if policy.leap == .unsynchronized {
            logger.warning(
                "this host's clock is not synchronized: replies say so (leap indicator 3, stratum 16) and clients will not use them; set a local stratum to serve it anyway",
                metadata: ["maxerror": .string("\((clockState ?? .unknown).maximumError)")])
        }
    }

    private func runSwiftNIO(states: [NIOLoopBoundBox<NTPServerState>]) async throws {
        var channels: [any Channel] = []
        var port = configuration.port
        do {
            var attempts = 0
            while true {
                attempts += 1
                if states.count > 1 { port = try await probeExclusively(port: configuration.port, on: states[0].eventLoop) }
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
            throw bindFailed(error, port: port)
        }
        let address = channels[0].localAddress!
        announce(address: address, sockets: channels.count, io: "swiftNIO")
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
    private func probeExclusively(port: Int, on eventLoop: any EventLoop) async throws -> Int {
        let probe = try await DatagramBootstrap(group: eventLoop).bind(host: configuration.host, port: port).get()
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
        if configuration.threads > 1 {
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
        switch sockets {
        case .swiftNIO(let states):
            for state in states { total.add(try await state.eventLoop.submit { state.value.statistics }.get()) }
        case .batched(let states):
            for state in states { total.add(state.withLock { $0.statistics }) }
        }
        return total
    }
}
#endif
