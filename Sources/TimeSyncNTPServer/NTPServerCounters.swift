#if NTPServer
import Logging
import Metrics
import TimeSync
import TimeSyncServerSupport

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

extension Logger {
    /// The default logger of the NTP server: discards everything. Pass your own to see its logs.
    @usableFromInline static let ntpNoOp = Logger(label: "timesync.ntp", factory: { _ in SwiftLogNoOpLogHandler() })
}

extension AddressRateLimiter {
    /// The limiter a server's configuration asks for.
    convenience init(configuration: NTPServerConfiguration, seed: UInt64 = .random(in: .min ... .max)) {
        self.init(
            rate: configuration.rateLimit, burst: configuration.rateLimitBurst,
            kissEvery: configuration.overLimitAction == .kissOfDeath ? configuration.rateLimitKissEvery : 0,
            ipv6PrefixLength: configuration.ipv6ClientPrefixLength, seed: seed)
    }
}
#endif
