/// A client an `NTPRateLimiter` tells apart: equal clients, equal bits.
///
/// The limiter hashes these bits with its own seeded function rather than `Hasher`, whose seed
/// changes with every process: its table then behaves the same in every run for a given seed.
package protocol NTPRateLimitedClient: Hashable, Sendable {
    /// The client's identity in 128 bits: an IPv6 address, or an IPv4 address with a tag that keeps
    /// it apart from every IPv6 one.
    var rateLimitBits: (high: UInt64, low: UInt64) { get }
}

/// A client's address as 128 bits: the rate limiter's key for a transport's addresses.
package struct NTPRateLimitKey: NTPRateLimitedClient {
    /// The address's high 64 bits (zero for IPv4).
    package var high: UInt64
    /// The address's low 64 bits (for IPv4: a tag bit above the 32-bit address).
    package var low: UInt64

    /// A key from an address's bits.
    package init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// An IPv4 address (in host byte order), tagged apart from every IPv6 address.
    package init(ipv4 address: UInt32) {
        self.init(high: 0, low: 1 << 32 | UInt64(address))
    }

    package var rateLimitBits: (high: UInt64, low: UInt64) { (high, low) }

    /// The key of the client this address counts as: an IPv4 address itself, an IPv6 address its
    /// first `ipv6Length` bits (``ClientPrefix``). An IPv6 address whose first 64 bits are zero
    /// (loopback, IPv4-mapped and other addresses no client is routed from) and an IPv4 key are
    /// kept whole.
    @inline(__always)
    package func client(ipv6Length: Int) -> NTPRateLimitKey {
        guard high != 0 else { return self }
        let prefix = ClientPrefix.ipv6(high: high, low: low, length: ipv6Length)
        return NTPRateLimitKey(high: prefix.high, low: prefix.low)
    }
}

/// What an NTP server does with one request, in the rate limiter's judgement.
package enum NTPRateLimitDecision: Sendable, Hashable {
    /// Within the client's limit: answer.
    case admit
    /// Over the limit, and this one is due a Kiss-o'-Death `RATE`, with this poll exponent: log2 of
    /// the interval, in seconds, the client must leave between requests.
    case kiss(poll: Int8)
    /// Over the limit: do not answer.
    case drop
}

/// Rate limits for an NTP server's clients: a token bucket per client address in a fixed-size table,
/// answering a flood with a trickle of kisses.
///
/// Each client's bucket holds up to ``burst`` tokens and refills at ``rate`` tokens per second; a
/// request takes one token. A request finding the bucket empty is over the limit: the first such
/// request of a client, and then one in ``kissEvery``, is due a Kiss-o'-Death `RATE`; the rest are
/// dropped. A flood from one address, spoofed or not, thus gets back a small share of what it sends
/// (one 48-byte kiss per ``kissEvery`` requests), and sending nothing back is also what makes a
/// flood cheap to absorb. A kiss asks for ``minimumPoll``: the interval the limit allows, not the
/// poll the client claims.
///
/// The table is a hash table of buckets of ``ways`` entries, sized once at creation: a request
/// looks at one bucket only, and a client not in it takes an empty entry or, when the bucket is
/// full, the entry of the least recently seen client of that bucket. A forgotten client starts
/// again with a full bucket, as a new one does: so when more clients come and go than the table
/// holds, they are all served, while an address that floods stays the most recently seen of its
/// bucket and keeps its empty bucket. The hash is keyed by a seed: a server picks one at random,
/// so that nobody can aim many addresses at one bucket; tests pass a fixed one.
///
/// Sans-IO: the caller passes the monotonic time of each request.
package struct NTPRateLimiter<Client: NTPRateLimitedClient>: Sendable {
    /// Entries per hash bucket: how many clients that hash alike are tracked side by side.
    package static var ways: Int { 8 }
    /// The largest poll exponent a server asks for: 17, about 36 hours (RFC 5905's MAXPOLL).
    package static var maximumPoll: Int8 { 17 }
    /// The smallest poll exponent a server advertises: −7, 1/128 s.
    package static var minimumAdvertisedPoll: Int8 { -7 }

    /// Tokens added per second.
    package let rate: Double
    /// The bucket size: how many requests a client may send back to back.
    package let burst: Double
    /// The most clients tracked at once: the capacity asked for, rounded up to whole buckets.
    package let capacity: Int
    /// One over-limit request in this many is answered with a kiss (the first one always is);
    /// 0: none is.
    package let kissEvery: Int
    /// The poll exponent clients are asked to respect: log2 of 1/``rate`` seconds rounded up, so
    /// that a client polling at that interval stays within its limit; within
    /// ``minimumAdvertisedPoll``…``maximumPoll``.
    package let minimumPoll: Int8

    private struct Entry: Sendable {
        var client: Client?
        var tokens: Double
        var lastSeen: Int64
        /// Over-limit requests since the client took this entry.
        var overLimit: UInt32
    }

    private var entries: [Entry]
    private let bucketCount: UInt64
    private let seed: UInt64
    /// Entries in use.
    package private(set) var trackedClients = 0
    /// Clients forgotten to make room for others.
    package private(set) var evictions = 0

    /// Creates a limiter; its whole table is allocated here.
    /// - Parameters:
    ///   - rate: Tokens per second (requests per second sustained); `.infinity` admits everything.
    ///   - burst: Bucket size, at least 1.
    ///   - capacity: Most clients tracked, at least ``ways``; rounded up to a multiple of ``ways``.
    ///   - kissEvery: One over-limit request in this many gets a kiss (default 16); 0 for none.
    ///   - seed: Keys the table's hash: random in a server, fixed in a test.
    package init(rate: Double, burst: Double, capacity: Int = 10_000, kissEvery: Int = 16, seed: UInt64) {
        self.rate = rate.isNaN ? 0 : max(0, rate)
        self.burst = burst.isNaN ? 1 : max(1, burst)
        let ways = Self.ways
        let buckets = (max(ways, capacity) + ways - 1) / ways
        self.bucketCount = UInt64(buckets)
        self.capacity = buckets * ways
        self.kissEvery = max(0, kissEvery)
        self.seed = seed
        self.minimumPoll = Self.poll(forInterval: 1 / self.rate)
        self.entries = Array(repeating: Entry(client: nil, tokens: 0, lastSeen: 0, overLimit: 0), count: buckets * ways)
    }

    /// The poll exponent for an interval between requests: log2 of it rounded up, within
    /// ``minimumAdvertisedPoll``…``maximumPoll``.
    static func poll(forInterval seconds: Double) -> Int8 {
        guard seconds > 0 else { return minimumAdvertisedPoll }
        let exponent = log2(seconds).rounded(.up)
        guard exponent < Double(maximumPoll) else { return maximumPoll }
        return max(minimumAdvertisedPoll, Int8(exponent))
    }

    /// The poll exponent to put in a normal reply: the client's own, but at least ``minimumPoll``
    /// (a client polling faster than its limit is asked to slow down, as chronyd does) and at most
    /// ``maximumPoll``.
    package func replyPoll(requested: Int8) -> Int8 {
        Self.replyPoll(requested: requested, minimumPoll: minimumPoll)
    }

    /// The poll exponent to put in a normal reply, for a limiter whose ``minimumPoll`` is given.
    package static func replyPoll(requested: Int8, minimumPoll: Int8) -> Int8 {
        min(maximumPoll, max(minimumPoll, requested))
    }

    /// Judges a request from `client` at `time`, taking a token when there is one.
    /// - Returns: `NTPRateLimitDecision.admit` within the limit; over it,
    ///   `NTPRateLimitDecision.kiss(poll:)` for the first over-limit request and one in
    ///   ``kissEvery`` after, `NTPRateLimitDecision.drop` for the rest.
    /// - Complexity: O(``ways``): one bucket of the table; no allocation.
    package mutating func decide(_ client: Client, at time: MonotonicInstant) -> NTPRateLimitDecision {
        guard rate < .infinity else { return .admit }
        let now = time.nanoseconds
        let first = bucket(of: client) * Self.ways
        var victim = first
        for index in first..<first + Self.ways {
            guard let tracked = entries[index].client else {
                // Entries fill in order and are never emptied: the client is not further on.
                victim = index
                break
            }
            if tracked == client { return take(at: index, now: now) }
            if entries[index].lastSeen < entries[victim].lastSeen { victim = index }
        }
        if entries[victim].client == nil {
            trackedClients += 1
        } else {
            evictions += 1
        }
        entries[victim] = Entry(client: client, tokens: burst, lastSeen: now, overLimit: 0)
        return take(at: victim, now: now)
    }

    private mutating func take(at index: Int, now: Int64) -> NTPRateLimitDecision {
        let elapsed = max(0, Double(now) - Double(entries[index].lastSeen)) / 1e9
        entries[index].tokens = min(burst, entries[index].tokens + elapsed * rate)
        entries[index].lastSeen = max(entries[index].lastSeen, now)
        if entries[index].tokens >= 1 {
            entries[index].tokens -= 1
            return .admit
        }
        let overLimit = entries[index].overLimit
        entries[index].overLimit = overLimit &+ 1
        guard kissEvery > 0, overLimit % UInt32(clamping: kissEvery) == 0 else { return .drop }
        return .kiss(poll: minimumPoll)
    }

    /// The client's bucket: its bits hashed with SplitMix64's output function keyed by the seed,
    /// mapped onto the buckets by a multiply (no modulo bias worth the name, any bucket count).
    private func bucket(of client: Client) -> Int {
        let bits = client.rateLimitBits
        var high = SplitMix64(seed: seed ^ bits.high)
        var low = SplitMix64(seed: high.next() ^ bits.low)
        return Int(low.next().multipliedFullWidth(by: bucketCount).high)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import TimeSync
