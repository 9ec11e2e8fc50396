#if canImport(FoundationNetworking) || canImport(Darwin)
import Foundation
#endif
#if canImport(os)
import os
#endif
import TimeSync
import TimeSyncWire
import TimeSyncHTTP

extension TimeSynchronizer {
    /// A synchronizer on NTP servers (by default `NTPServerAddress.defaultServers`; the NTP Pool
    /// through your vendor zone with `.pool(vendor:)`) that falls back to HTTPS
    /// `Date` headers where NTP gets no answer; not yet started.
    ///
    /// UDP port 123 is blocked on many corporate and some mobile networks, silently: when no NTP
    /// server has answered `Configuration.fallbackAfter` (5 s) after the start or a
    /// resynchronization, the `Date` sources are polled too (refined below a second), until an NTP
    /// server answers again. They are polled at once when every NTP server's last poll failed on the
    /// way (no route, a network error), and on iOS, tvOS and watchOS when the synchronizer starts
    /// and when the app comes to the foreground (which a started synchronizer follows by itself): there, only a
    /// URLSession request brings up an idle cellular radio or a VPN On Demand, not a UDP datagram.
    /// - Parameters:
    ///   - servers: The NTP servers.
    ///   - fallbackHosts: HTTPS servers whose `Date` is used while NTP is silent (default:
    ///     `TimeSource.defaultHTTPSHosts`; `[]` for none).
    ///   - configuration: Target error, polling, budget, the fallback's delay.
    ///   - addressPolicy: Which addresses the servers' names may resolve to (default: public ones only).
    ///   - store: Where the calibration is kept between launches.
    ///   - keyProvider: The key that authenticates the store (default: `SystemCalibrationKeyProvider`
    ///     with no access group). An app and its extensions sharing a store in an app group pass
    ///     `SystemCalibrationKeyProvider(accessGroup:)` with that group, so that both read one key.
    @available(watchOS, unavailable, message: "watchOS apps cannot use BSD sockets (Apple TN3135): use TimeSynchronizer.https()")
    public static func ntp(
        _ servers: [NTPServerAddress] = NTPServerAddress.defaultServers, fallbackHosts: [URL] = TimeSource.defaultHTTPSHosts,
        configuration: Configuration = .init(), addressPolicy: AddressPolicy = .publicOnly, store: (any CalibrationStore)? = nil,
        keyProvider: (any CalibrationKeyProvider)? = nil
    ) -> TimeSynchronizer {
        var seen: Set<String> = []
        var sources = servers.filter { seen.insert($0.description).inserted }.map { TimeSource.ntp($0, addressPolicy: addressPolicy) }
        if sources.isEmpty { sources = NTPServerAddress.defaultServers.map { TimeSource.ntp($0) } }
        let fallback = dateSources(fallbackHosts, excluding: Set(sources.map(\.name)))
        // Non-empty, distinct names, one reference (UTC): the initializer cannot fail on these.
        return try! TimeSynchronizer(
            sources: sources, fallbackSources: fallback, configuration: configuration, store: store, keyProvider: keyProvider)
    }

    /// A synchronizer on HTTPS servers' `Date` headers alone (refined below a second): for where UDP
    /// cannot be used at all, as on watchOS.
    /// - Parameters:
    ///   - hosts: The HTTPS servers (default: `TimeSource.defaultHTTPSHosts`).
    ///   - configuration: Target error, polling, budget.
    ///   - store: Where the calibration is kept between launches.
    ///   - keyProvider: The key that authenticates the store, as for
    ///     ``ntp(_:fallbackHosts:configuration:addressPolicy:store:keyProvider:)``.
    public static func https(
        _ hosts: [URL] = TimeSource.defaultHTTPSHosts, configuration: Configuration = .init(), store: (any CalibrationStore)? = nil,
        keyProvider: (any CalibrationKeyProvider)? = nil
    ) -> TimeSynchronizer {
        var sources = dateSources(hosts, excluding: [])
        if sources.isEmpty { sources = dateSources(URLSessionDateSource.defaultHosts, excluding: []) }
        return try! TimeSynchronizer(sources: sources, configuration: configuration, store: store, keyProvider: keyProvider)
    }

    /// One `Date` source per host, a host named twice (or among `excluding`) once.
    private static func dateSources(_ hosts: [URL], excluding: Set<String>) -> [TimeSource] {
        var seen = excluding
        return hosts.map { TimeSource.https($0) }.filter { seen.insert($0.name).inserted }
    }

    /// One synchronizer for the whole app, started on first use: Kronos's `Clock.sync()` /
    /// `Clock.now` in one line, `TimeSynchronizer.shared.clock.now`.
    ///
    /// It asks `NTPServerAddress.defaultServers` (two operators who invite public use) and, where
    /// NTP gets no answer within 5 s (UDP blocked), HTTPS `Date`
    /// headers of `TimeSource.defaultHTTPSHosts`; on watchOS, where apps cannot send UDP, HTTPS
    /// alone. For other servers build your own with ``ntp(_:fallbackHosts:configuration:addressPolicy:store:keyProvider:)``.
    ///
    /// On Apple platforms it logs (`os.Logger`, subsystem `timesync`) what an app should know: when no
    /// server answered (the clock then shows the device's time, flagged unsynchronized), a spoofing
    /// attempt, a server that asked to be left alone. The same news comes as
    /// `events(bufferingNewest:)`.
    public static let shared: TimeSynchronizer = {
        #if os(watchOS)
        let synchronizer = TimeSynchronizer.https()
        #else
        let synchronizer = TimeSynchronizer.ntp()
        #endif
        #if canImport(os)
        let events = synchronizer.events()
        Task.detached(priority: .utility) {
            let logger = os.Logger(subsystem: "timesync", category: "synchronizer")
            for await event in events {
                guard let (warning, message) = logMessage(for: event) else { continue }
                if warning { logger.warning("\(message, privacy: .public)") } else { logger.notice("\(message, privacy: .public)") }
            }
        }
        #endif
        synchronizer.start()
        return synchronizer
    }()

    /// What an app should hear of an event, and whether it is a warning; `nil` for routine news.
    static func logMessage(for event: TimeSynchronizerEvent) -> (warning: Bool, message: String)? {
        switch event {
        case .noSourceAnswered(let errors):
            let details = errors.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: "; ")
            return (
                true,
                "TimeSync: no time server answered; the clock shows this device's time, unsynchronized, until one does. Check network access to UDP port 123 and HTTPS. \(details)"
            )
        case .conflictingReplies(let source):
            return (true, "TimeSync: two different replies to one request from \(source); a host on the path may be spoofing this server")
        case .kissed(let source, let stopped):
            return (false, stopped ? "TimeSync: \(source) asked not to be used; it is no longer polled" : "TimeSync: \(source) asked to be polled less often")
        case .fallingBack(let sources, let reason):
            return (false, "TimeSync: asking HTTPS Date from \(sources.joined(separator: ", ")) too: \(reason)")
        case .storeFailed(let reason):
            return (true, "TimeSync: the calibration store could not be written: \(reason)")
        case .failed, .measured, .resynchronizing, .statusChanged, .offsetChanged, .wallClockChanged, .sourceLost, .noMajority,
            .sampleRejected, .floorLowered:
            return nil
        }
    }
}
