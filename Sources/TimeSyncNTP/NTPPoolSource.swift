#if ServiceLifecycle
import ServiceLifecycle
#endif
import TimeSync
import TimeSyncWire
import TimeSyncSockets

/// Keeps a `ServerClock` calibrated from NTP servers: resolves every configured name to all its
/// IPv4 and IPv6 addresses and polls each address as the core's `SynchronizerCore` directs (the same
/// poll loop a `TimeSynchronizer` runs: an initial burst, then backoff; Kiss-o'-Death codes obeyed; a
/// name resolved again when its addresses fall silent), and feeds every accepted reply to the clock,
/// whose estimator filters each source and selects across sources (dropping falsetickers).
///
/// Failures never reach the clock: timeouts, unreachable networks, rejected replies and DNS errors
/// become `NTPPoolEvent`s and `ServerClock.reject(source:reason:)` reports and are retried with
/// backoff, while the clock keeps its last calibration. A `RATE` kiss lengthens that source's poll
/// interval; `DENY`/`RSTR` remove the source. When every address of a name has stopped, the name is
/// resolved again after the policy's maximum interval.
///
/// ``run()`` runs until cancelled (and, with the package's `ServiceLifecycle` trait, it is a
/// `Service` that also ends at graceful shutdown).
@available(watchOS, unavailable, message: "watchOS apps cannot use BSD sockets (Apple TN3135): use TimeSynchronizer.https() or TimeSource.https(_:)")
package struct NTPPoolSource: Sendable {
    /// The clock fed; its time base is used for every timestamp and sleep.
    package let clock: ServerClock
    /// The configuration.
    package let configuration: NTPPoolConfiguration
    private let client: NTPClient
    private let onEvent: @Sendable (NTPPoolEvent) -> Void

    /// Creates a pool source.
    /// - Parameters:
    ///   - clock: The clock to calibrate.
    ///   - configuration: Servers, limits and poll policy.
    ///   - onEvent: Called for every `NTPPoolEvent`, from any task: log or count them there.
    package init(
        clock: ServerClock, configuration: NTPPoolConfiguration = .init(), onEvent: @escaping @Sendable (NTPPoolEvent) -> Void = { _ in }
    ) {
        self.clock = clock
        self.configuration = configuration
        self.onEvent = onEvent
        self.client = NTPClient(timeBase: clock.timeBase, limits: configuration.limits, addressPolicy: configuration.addressPolicy)
    }

    /// The clock's source name for an address of a server: `host/ip:port`, or `ip:port` for an IP
    /// literal.
    package static func sourceName(server: NTPServerAddress, address: IPEndpoint) -> String {
        let ip = address.address.description
        return server.host == ip ? address.description : "\(server.host)/\(address)"
    }

    /// Polls until cancelled or graceful shutdown.
    package func run() async throws {
        let registry = AddressRegistry(capacity: configuration.maximumSources)
        let ends = AddressEnds()
        let loop = SynchronizerLoop(
            clock: clock,
            core: SynchronizerCore(sources: [], configuration: .init(poll: configuration.policy), start: clock.timeBase.monotonicNow()),
            sources: [], resolvesInPlace: false, followsClockError: false,
            onNotice: { [onEvent] notice in Self.report(notice, ends: ends, onEvent: onEvent) })
        let poll = { @Sendable in
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await loop.run() }
                for server in configuration.servers {
                    group.addTask { await self.runHost(server, registry: registry, loop: loop, ends: ends) }
                }
            }
        }
        #if ServiceLifecycle
        await cancelWhenGracefulShutdown { await poll() }
        #else
        await poll()
        #endif
    }

    /// Turns what the poll loop did into events.
    private static func report(_ notice: SynchronizerLoop.Notice, ends: AddressEnds, onEvent: @Sendable (NTPPoolEvent) -> Void) {
        switch notice {
        case .events:
            break
        case .measured(_, let samples):
            for sample in samples { onEvent(.sample(sample)) }
        case .failed(let source, let error, _, let retryIn):
            // The refusal's code as its protocol's error gives it (a pool's sources are NTP: a kiss).
            if let code = (error as? any CodedError)?.refusalCode.flatMap(NTPReferenceID.init(ascii:)) {
                onEvent(.kissOfDeath(source: source, code: code, retryIn: retryIn))
            } else if let retryIn {
                onEvent(.failed(source: source, error: "\(error)", retryIn: retryIn))
            }
        case .unreachable(let source):
            ends.end(source, with: .resolve)
        case .removed(let source):
            ends.end(source, with: .demobilize)
        }
    }

    private func sleep(for duration: Duration) async throws {
        let timeBase = clock.timeBase
        try await timeBase.sleep(until: timeBase.monotonicNow().advanced(by: duration), tolerance: SleepTolerance.forWait(duration))
    }

    /// Resolves one name and has its addresses polled; resolves it again when they have all stopped.
    private func runHost(_ server: NTPServerAddress, registry: AddressRegistry, loop: SynchronizerLoop, ends: AddressEnds) async {
        var retry = PollPolicy.pollFloor
        while !Task.isCancelled {
            let addresses: [IPEndpoint]
            do {
                addresses = try await NTPResolver.resolve(
                    host: server.host, port: server.port, policy: configuration.addressPolicy,
                    deadline: .after(configuration.timeout, on: clock.timeBase), timeBase: clock.timeBase)
            } catch is CancellationError {
                return
            } catch {
                onEvent(.resolutionFailed(server: server, error: "\(error)", retryIn: retry))
                do { try await sleep(for: retry) } catch { return }
                retry = min(retry * 2, configuration.policy.maximumInterval)
                continue
            }
            retry = PollPolicy.pollFloor
            let claimed = await registry.claim(addresses, upTo: configuration.addressesPerHost)
            if !claimed.isEmpty {
                onEvent(.resolved(server: server, addresses: claimed.map(\.address.description)))
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

    /// One address as a source of the poll loop: each poll is the measurement a synchronizer's NTP
    /// source makes (one exchange, listening on for a conflicting reply), on this address.
    private func source(_ name: String, at address: IPEndpoint) -> SynchronizerLoop.Source {
        let (client, timeout) = (self.client, configuration.timeout)
        return SynchronizerLoop.Source(
            name: name,
            measure: {
                try await client.samples(
                    of: .addresses([address]), source: name, deadline: .after(timeout, on: client.timeBase), conflictWindow: .synchronizer)
            })
    }
}

#if ServiceLifecycle
/// A pool source is a ServiceLifecycle `Service` (with the package's `ServiceLifecycle` trait): it
/// polls from `NTPPoolSource.run()` until graceful shutdown or cancellation.
@available(watchOS, unavailable)
extension NTPPoolSource: Service {}
#endif
