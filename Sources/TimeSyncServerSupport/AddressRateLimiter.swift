#if NTPServer || NTS || RoughtimeServer
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import NIOCore
import TimeSync

/// One token bucket per client address, shared by every socket of a server: the kernel may hand a
/// client's requests from different source ports to different sockets. The table is split into
/// ``shardCount`` shards, each under its own lock, picked by a keyed hash of the address: sockets
/// on different cores contend only when they look up addresses of the same shard at the same
/// moment, never on one lock for the whole table. The hashes are keyed by random seeds, so that
/// nobody can aim many addresses at one shard or one of its buckets.
///
/// The NTP server and the Roughtime server (without kisses: Roughtime has none) limit their
/// clients with it.
package final class AddressRateLimiter: Sendable {
    /// Shards of the table: enough that two or more cores rarely meet on one.
    static let shardCount = 16
    private let shards: [Locked<NTPRateLimiter<NTPRateLimitKey>>]
    private let shardSeed: UInt64
    /// No limit: every request is admitted without taking a lock.
    private let unlimited: Bool
    /// The least poll exponent replies and kisses advertise.
    package let minimumPoll: Int8
    /// How many leading bits of an IPv6 address name its client (``ClientPrefix``).
    package let ipv6PrefixLength: Int

    /// A limiter of `rate` requests per second sustained and `burst` back to back per client
    /// address, tracking up to 10,000 addresses.
    /// - Parameters:
    ///   - rate: Requests per second per address; `.infinity` admits everything.
    ///   - burst: Requests an address may send back to back, at least 1.
    ///   - kissEvery: One over-limit request in this many is due a kiss; 0 drops them all.
    ///   - ipv6PrefixLength: How many leading bits of an IPv6 address name its client: 64 by
    ///     default, so a host with a /64 has one share, not one per address.
    ///   - seed: Keys the hashes: random in a server, fixed in a test.
    package init(
        rate: Double, burst: Double, kissEvery: Int, ipv6PrefixLength: Int = ClientPrefix.defaultIPv6Length,
        seed: UInt64 = .random(in: .min ... .max)
    ) {
        self.ipv6PrefixLength = ipv6PrefixLength
        var generator = SplitMix64(seed: seed)
        let capacity = max(NTPRateLimiter<NTPRateLimitKey>.ways, 10_000 / Self.shardCount)
        shards = (0..<Self.shardCount).map { _ in
            Locked(NTPRateLimiter<NTPRateLimitKey>(rate: rate, burst: burst, capacity: capacity, kissEvery: kissEvery, seed: generator.next()))
        }
        shardSeed = generator.next()
        unlimited = rate == .infinity
        minimumPoll = shards[0].withLock { $0.minimumPoll }
    }

    /// Admits, kisses or drops a request from `client` (an address: counted by its IPv6 prefix)
    /// arriving at `time`.
    package func decide(_ client: NTPRateLimitKey, at time: MonotonicInstant) -> NTPRateLimitDecision {
        if unlimited { return .admit }
        let client = client.client(ipv6Length: ipv6PrefixLength)
        return shards[shard(of: client)].withLock { $0.decide(client, at: time) }
    }

    /// The shard of an address: its bits hashed with SplitMix64 keyed by the shard seed, as the
    /// limiter hashes them to its buckets (with another seed).
    func shard(of client: NTPRateLimitKey) -> Int {
        var high = SplitMix64(seed: shardSeed ^ client.high)
        var low = SplitMix64(seed: high.next() ^ client.low)
        return Int(low.next().multipliedFullWidth(by: UInt64(Self.shardCount)).high)
    }
}

extension NTPRateLimitKey {
    /// A client's IP address, without the port, as a compact key (no string per request).
    package init(_ address: SocketAddress) {
        switch address {
        case .v4(let v4):
            self.init(ipv4: UInt32(bigEndian: v4.address.sin_addr.s_addr))
        case .v6(let v6):
            self.init(in6: v6.address.sin6_addr)
        case .unixDomainSocket:
            self.init(high: .max, low: .max)
        }
    }

    /// An IPv6 address's 128 bits.
    package init(in6 address: in6_addr) {
        let (high, low) = withUnsafeBytes(of: address) {
            (UInt64(bigEndian: $0.loadUnaligned(as: UInt64.self)), UInt64(bigEndian: $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
        }
        self.init(high: high, low: low)
    }
}
#endif
