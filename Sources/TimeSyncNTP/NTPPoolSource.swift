import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import TimeSync

/// Keeps a `ServerClock` calibrated from NTP servers: resolves every configured name to all its
/// IPv4 and IPv6 addresses and polls each address as the core's `SynchronizerCore` directs (the same
/// poll loop a `TimeSynchronizer` runs: an initial burst, then backoff; Kiss-o'-Death codes obeyed; a
/// name resolved again when its addresses fall silent), and feeds every accepted reply to the clock,
/// whose estimator filters each source and selects across sources (dropping falsetickers).
///
/// Failures never reach the clock: timeouts, unreachable networks, rejected replies and DNS errors
/// become ``NTPPoolEvent``s and `ServerClock.reject(source:reason:)` reports and are retried with
/// backoff, while the clock keeps its last calibration. A `RATE` kiss lengthens that source's poll
/// interval; `DENY`/`RSTR` remove the source. When every address of a name has stopped, the name is
/// resolved again after the policy's maximum interval.
///
/// A ServiceLifecycle `Service`: ``run()`` runs until cancelled or graceful shutdown.
public struct NTPPoolSource: Service {
    /// The clock fed; its time base is used for every timestamp and sleep.
    public let clock: ServerClock
    /// The configuration.
    public let configuration: NTPPoolConfiguration
    private let client: NTPClient
    private let logger: Logger
    private let onEvent: @Sendable (NTPPoolEvent) -> Void

    /// Creates a pool source.
    /// - Parameters:
    ///   - clock: The clock to calibrate.
    ///   - configuration: Servers, limits and poll policy.
    ///   - group: The event loops (default: NIO's shared singleton).
    ///   - logger: The logger (default: discards everything).
    ///   - onEvent: Called for every ``NTPPoolEvent``, from any task.
    public init(
        clock: ServerClock, configuration: NTPPoolConfiguration = .init(),
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton, logger: Logger = .ntpNoOp,
        onEvent: @escaping @Sendable (NTPPoolEvent) -> Void = { _ in }
    ) {
        self.clock = clock
        self.configuration = configuration
        self.logger = logger
        self.onEvent = onEvent
        self.client = NTPClient(timeBase: clock.timeBase, group: group, limits: configuration.limits, logger: logger)
    }

    /// The clock's source name for an address of a server: `host/ip:port`, or `ip:port` for an IP
    /// literal.
    public static func sourceName(server: NTPServerAddress, address: SocketAddress) -> String {
        let ip = address.ipAddress ?? server.host
        let endpoint = NTPServerAddress(host: ip, port: address.port ?? server.port).description
        return server.host == ip ? endpoint : "\(server.host)/\(endpoint)"
    }

    /// Polls until cancelled or graceful shutdown.
    public func run() async throws {
        let registry = AddressRegistry(capacity: configuration.maximumSources)
        let ends = AddressEnds()
        let loop = SynchronizerLoop(
            clock: clock,
            core: SynchronizerCore(sources: [], configuration: .init(poll: configuration.policy), start: clock.timeBase.monotonicNow()),
            sources: [], resolvesInPlace: false, followsClockError: false,
            onNotice: { [logger, onEvent] notice in Self.report(notice, ends: ends, logger: logger, onEvent: onEvent) })
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await loop.run() }
                for server in configuration.servers {
                    group.addTask { await self.runHost(server, registry: registry, loop: loop, ends: ends) }
                }
            }
        }
    }

    /// Turns what the poll loop did into events and logs.
    private static func report(
        _ notice: SynchronizerLoop.Notice, ends: AddressEnds, logger: Logger, onEvent: @Sendable (NTPPoolEvent) -> Void
    ) {
        switch notice {
        case .events:
            break
        case .measured(_, let samples):
            for sample in samples { onEvent(.sample(sample)) }
        case .failed(let source, let error, _, let retryIn):
            if let error = error as? NTPReplyError, error == .kissOfDeath {
                let code = error.kissCode ?? NTPReferenceID(rawValue: 0)
                logger.warning("NTP Kiss-o'-Death", metadata: ["source": .string("\(source)"), "code": .string("\(code)")])
                onEvent(.kissOfDeath(source: source, code: code, retryIn: retryIn))
            } else if let retryIn {
                logger.debug("NTP exchange failed", metadata: ["source": .string("\(source)"), "error": .string("\(error)")])
                onEvent(.failed(source: source, error: "\(error)", retryIn: retryIn))
            }
        case .unreachable(let source):
            logger.info("NTP server unreachable; resolving its name again", metadata: ["source": .string("\(source)")])
            ends.end(source, with: .resolve)
        case .removed(let source):
            ends.end(source, with: .demobilize)
        }
    }

    private func sleep(for duration: Duration) async throws {
        let timeBase = clock.timeBase
        try await timeBase.sleep(until: timeBase.monotonicNow().advanced(by: duration))
    }

    /// Resolves one name and has its addresses polled; resolves it again when they have all stopped.
    private func runHost(_ server: NTPServerAddress, registry: AddressRegistry, loop: SynchronizerLoop, ends: AddressEnds) async {
        var retry = PollPolicy.pollFloor
        while !Task.isCancelled {
            let addresses: [SocketAddress]
            do {
                addresses = try await NTPResolver.resolve(host: server.host, port: server.port)
            } catch {
                logger.warning("NTP server did not resolve", metadata: ["server": .string("\(server)"), "error": .string("\(error)"), "retry": .string("\(retry)")])
                onEvent(.resolutionFailed(server: server, error: "\(error)", retryIn: retry))
                do { try await sleep(for: retry) } catch { return }
                retry = min(retry * 2, configuration.policy.maximumInterval)
                continue
            }
            retry = PollPolicy.pollFloor
            let claimed = await registry.claim(addresses, upTo: configuration.addressesPerHost)
            if !claimed.isEmpty {
                onEvent(.resolved(server: server, addresses: claimed.map { $0.ipAddress ?? "\($0)" }))
                logger.info("NTP server resolved", metadata: ["server": .string("\(server)"), "addresses": .string("\(claimed.map(\.endpoint))")])
                let names = claimed.map { Self.sourceName(server: server, address: $0) }
                for (name, address) in zip(names, claimed) { loop.add(source(name, at: address)) }
                let ended = await ends.wait(for: names)
                await registry.release(claimed)
                guard let ended else { return }
                // An address gone silent asks for the name again soon (the server may have moved);
                // addresses that all said DENY/RSTR are left alone for the longest interval.
                let pause = ended.contains(.resolve) ? configuration.policy.minimumInterval : configuration.policy.maximumInterval
                do { try await sleep(for: pause) } catch { return }
                continue
            }
            do { try await sleep(for: configuration.policy.maximumInterval) } catch { return }
        }
    }

    /// One address as a source of the poll loop: one exchange per poll, its reply's sample.
    private func source(_ name: String, at address: SocketAddress) -> SynchronizerLoop.Source {
        let (client, timeout) = (self.client, configuration.timeout)
        return SynchronizerLoop.Source(
            name: name,
            measure: { try await [client.exchange(with: address, timeout: timeout).sample(source: name)] },
            outcome: { error in
                guard let error = error as? NTPReplyError, error == .kissOfDeath else { return .failure }
                return .kiss((error.kissCode ?? NTPReferenceID(rawValue: 0)).kissAction)
            })
    }
}
