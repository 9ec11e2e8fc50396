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
#endif
