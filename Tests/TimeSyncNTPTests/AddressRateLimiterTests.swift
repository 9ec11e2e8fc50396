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

    @Test func withoutALimitEveryRequestIsAdmitted() {
        let limiter = AddressRateLimiter(configuration: .init(rateLimit: .infinity), seed: 1)
        let key = NTPRateLimitKey(ipv4: 1)
        #expect((0..<1_000).allSatisfy { _ in limiter.decide(key, at: Self.start) == .admit })
    }
}
#endif
