#if NTPServer
import Testing
import TimeSync
@testable import TimeSyncNTPServer
@testable import TimeSyncServerSupport

/// The server's rate limiter, split into shards under separate locks: addresses spread over the
/// shards, and an address is limited as one whichever socket asks.
@Suite struct AddressRateLimiterTests {
    static let start = MonotonicInstant(nanoseconds: 1_000_000_000_000)

    @Test func addressesSpreadOverTheShards() {
        let limiter = AddressRateLimiter(configuration: .init(rateLimit: 1), seed: 42)
        var counts = [Int](repeating: 0, count: AddressRateLimiter.shardCount)
        for address in 0..<UInt32(16_000) { counts[limiter.shard(of: NTPRateLimitKey(ipv4: 0x0A00_0000 + address))] += 1 }
        // 1000 expected per shard; a hash that missed shards or piled on one would leave this range.
        #expect(counts.allSatisfy { (850...1150).contains($0) }, "\(counts)")
        let key = NTPRateLimitKey(ipv4: 0xC000_0207)
        #expect(limiter.shard(of: key) == limiter.shard(of: key))
    }

    /// Burst 8, one kiss in 16 over the limit: the same sequence as one unsharded table gives,
    /// and a flooding address leaves others untouched, in its shard or in another.
    @Test func anAddressIsLimitedAsOneAndOthersAreNotTouched() {
        let limiter = AddressRateLimiter(configuration: .init(rateLimit: 1, rateLimitBurst: 8), seed: 7)
        let flooder = NTPRateLimitKey(ipv4: 0xC633_6401)
        let decisions = (0..<40).map { _ in limiter.decide(flooder, at: Self.start) }
        #expect(decisions[0..<8].allSatisfy { $0 == .admit })
        #expect(decisions[8] == .kiss(poll: 0) && decisions[24] == .kiss(poll: 0))
        #expect(decisions.filter { $0 == .drop }.count == 40 - 8 - 2)  // 32 over the limit, 2 kissed
        var sameShard: NTPRateLimitKey?
        var otherShard: NTPRateLimitKey?
        for address in UInt32(1)...1_000 {
            let key = NTPRateLimitKey(ipv4: 0xCB00_7100 + address)
            if limiter.shard(of: key) == limiter.shard(of: flooder) { sameShard = sameShard ?? key } else { otherShard = otherShard ?? key }
        }
        for neighbour in [sameShard, otherShard].compactMap({ $0 }) {
            #expect(limiter.decide(neighbour, at: Self.start) == .admit)
        }
        #expect(sameShard != nil && otherShard != nil)
        // A second later one token is back: one more request is admitted.
        #expect(limiter.decide(flooder, at: Self.start.advanced(by: .seconds(1))) == .admit)
    }

    /// 500 addresses of one /64 (one host's usual share) are one client: 16,000 requests, 32 from
    /// each, get what one address would, not 500 times that. With the prefix set to 128 each address
    /// is a client of its own; another /64 is not touched either way.
    @Test(arguments: [(64, 8), (128, 8 * 500)])
    func anIPv6ClientIsCountedByItsPrefix(prefix: Int, admitted: Int) {
        let limiter = AddressRateLimiter(rate: 1, burst: 8, kissEvery: 0, ipv6PrefixLength: prefix, seed: 3)
        let network: UInt64 = 0x2001_0DB8_0001_0000
        var answered = 0
        for _ in 0..<32 {
            for host in UInt64(1)...500 {
                let key = NTPRateLimitKey(high: network, low: host)
                if limiter.decide(key, at: Self.start) == .admit { answered += 1 }
            }
        }
        #expect(answered == admitted, "\(answered)")
        #expect(limiter.decide(NTPRateLimitKey(high: network + 1, low: 1), at: Self.start) == .admit)
    }

    /// The prefix helper every server counts by: IPv4 keys and IPv6 addresses whose first 64 bits
    /// are zero (loopback, IPv4-mapped) are kept whole.
    @Test func thePrefixKeepsWhatIsNotAGlobalIPv6Address() {
        #expect(NTPRateLimitKey(ipv4: 0x7F00_0001).client(ipv6Length: 64) == NTPRateLimitKey(ipv4: 0x7F00_0001))
        #expect(NTPRateLimitKey(high: 0, low: 1).client(ipv6Length: 64) == NTPRateLimitKey(high: 0, low: 1))
        #expect(NTPRateLimitKey(high: 0x2001_0DB8_0000_0001, low: 0xFFFF).client(ipv6Length: 64) == NTPRateLimitKey(high: 0x2001_0DB8_0000_0001, low: 0))
        #expect(ClientPrefix.ipv6(high: 0x2001_0DB8_ABCD_0001, low: 5, length: 48) == (0x2001_0DB8_ABCD_0000, 0))
        #expect(ClientPrefix.ipv6(high: 1, low: 0xFFFF_FFFF_FFFF_FFFF, length: 96) == (1, 0xFFFF_FFFF_0000_0000))
        #expect(ClientPrefix.ipv6(high: 1, low: 7, length: 128) == (1, 7))
        #expect(ClientPrefix.ipv6(high: 0xFFFF_FFFF_FFFF_FFFF, low: 7, length: 0) == (0xFFFF_FFFF_0000_0000, 0), "at least 32 bits")
    }

    @Test func withoutALimitEveryRequestIsAdmitted() {
        let limiter = AddressRateLimiter(configuration: .init(rateLimit: .infinity), seed: 1)
        let key = NTPRateLimitKey(ipv4: 1)
        #expect((0..<1_000).allSatisfy { _ in limiter.decide(key, at: Self.start) == .admit })
    }
}
#endif
