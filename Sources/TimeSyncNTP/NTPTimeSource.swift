import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import TimeSync

/// One NTP server as a `TimeSource` for a `TimeSynchronizer`: each measurement resolves the name
/// (so a server that moved is followed) and makes one exchange within the deadline.
///
/// Kiss-o'-Death codes reach the schedule: `RATE` slows the polling of this server, `DENY` and `RSTR`
/// stop it.
public struct NTPTimeSource: TimeSource {
    /// The server.
    public let server: NTPServerAddress
    /// `host:port`; the samples carry it.
    public let name: String
    private let client: NTPClient

    /// NTP tells UTC.
    public var reference: TimeReference { .utc }

    /// A source for one server.
    /// - Parameters:
    ///   - server: The server's name or address and port.
    ///   - timeBase: The clocks; must be the synchronizer's.
    ///   - limits: The limits replies must meet.
    public init(_ server: NTPServerAddress, timeBase: any TimeBase = SystemTimeBase(), limits: NTPReplyLimits = .init()) {
        self.server = server
        self.name = server.description
        self.client = NTPClient(timeBase: timeBase, limits: limits)
    }

    /// Sources for several servers (a pool's names, or a hosts file's lines).
    public static func sources(_ servers: [NTPServerAddress], timeBase: any TimeBase = SystemTimeBase()) -> [NTPTimeSource] {
        servers.map { NTPTimeSource($0, timeBase: timeBase) }
    }

    /// Resolves the name and makes one exchange with the first address that answers.
    /// - Returns: The reply's sample, validated, carrying ``name``.
    public func measure(timeout: Duration) async throws -> [OffsetSample] {
        // Listens on after the reply (max(2 round trips, 250 ms)), so a spoofer racing the server is
        // seen before its sample reaches the clock.
        try await client.samples(of: server, source: name, timeout: timeout, conflictWindow: .synchronizer)
    }

    public func pollOutcome(for error: any Error) -> PollOutcome {
        if let error = error as? NTPReplyError, error == .kissOfDeath {
            return .kiss((error.kissCode ?? NTPReferenceID(rawValue: 0)).kissAction)
        }
        return .failure
    }
}

extension TimeSynchronizer {
    /// A synchronizer on NTP servers (by default the pool's four zones), not yet started.
    /// - Parameters:
    ///   - servers: The servers.
    ///   - configuration: Target error, polling, budget.
    ///   - store: Where the calibration is kept between launches.
    public static func ntp(
        _ servers: [NTPServerAddress] = NTPServerAddress.defaultPool, configuration: Configuration = .init(),
        store: (any CalibrationStore)? = nil
    ) -> TimeSynchronizer {
        // Non-empty, distinct names, one reference: the initializer cannot fail on these.
        var seen: Set<String> = []
        let sources = NTPTimeSource.sources(servers.filter { seen.insert($0.description).inserted })
        return try! TimeSynchronizer(sources: sources.isEmpty ? NTPTimeSource.sources(NTPServerAddress.defaultPool) : sources, configuration: configuration, store: store)
    }

    /// One synchronizer for the whole app on the NTP pool, started on first use: Kronos's
    /// `Clock.sync()` / `Clock.now` in one line, `TimeSynchronizer.shared.clock.now`.
    ///
    /// It logs (swift-log, label `timesync`) what an app should know: when no server answered (the
    /// clock then shows the device's time, flagged unsynchronized), a spoofing attempt, a server that
    /// asked to be left alone. The same news comes as `TimeSynchronizer.events(bufferingNewest:)`.
    public static let shared: TimeSynchronizer = {
        let synchronizer = TimeSynchronizer.ntp()
        let events = synchronizer.events()
        Task.detached(priority: .utility) {
            let logger = Logger(label: "timesync")
            for await event in events { log(event, to: logger) }
        }
        synchronizer.start()
        return synchronizer
    }()

    /// Logs the events an app should hear about.
    static func log(_ event: TimeSynchronizerEvent, to logger: Logger) {
        switch event {
        case .noSourceAnswered(let errors):
            logger.warning(
                "TimeSync: no NTP server answered; the clock shows this device's time, unsynchronized, until one does. Check network access to UDP port 123.",
                metadata: Logger.Metadata(uniqueKeysWithValues: errors.map { ($0.key, .string($0.value)) }))
        case .conflictingReplies(let source):
            logger.warning("TimeSync: two different replies to one request; a host on the path may be spoofing this server", metadata: ["source": .string(source)])
        case .kissed(let source, let stopped):
            logger.notice(stopped ? "TimeSync: the server asked not to be used; it is no longer polled" : "TimeSync: the server asked to be polled less often", metadata: ["source": .string(source)])
        case .failed(let source, let error):
            logger.debug("TimeSync: poll failed", metadata: ["source": .string(source), "error": .string(error)])
        case .measured, .resynchronizing:
            break
        }
    }
}

/// A synchronizer is a ServiceLifecycle `Service` for servers: it polls from `run()` until graceful
/// shutdown or cancellation, then stops and writes its store.
extension TimeSynchronizer: Service {
    public func run() async throws {
        start()
        await cancelWhenGracefulShutdown {
            // Waits until cancelled: a stream that never yields ends its iteration on cancellation.
            let (never, _) = AsyncStream.makeStream(of: Never.self)
            for await _ in never {}
        }
        await stop()
    }
}
