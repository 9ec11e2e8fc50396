import Testing
import TimeSync
import TimeSyncServerSupport

/// A client address for the limiter's tests: a number.
private struct Address: NTPRateLimitedClient {
    let value: UInt64
    init(_ value: Int) { self.value = UInt64(value) }
    var rateLimitBits: (high: UInt64, low: UInt64) { (0, value) }
}

private let start = MonotonicInstant(nanoseconds: 1_000_000_000)

/// Decisions counted by kind.
private struct Tally {
    var admitted = 0
    var kissed = 0
    var dropped = 0
    var kissPolls: Set<Int8> = []
    var total: Int { admitted + kissed + dropped }

    mutating func count(_ decision: NTPRateLimitDecision) {
        switch decision {
        case .admit: admitted += 1
        case .kiss(let poll):
            kissed += 1
            kissPolls.insert(poll)
        case .drop: dropped += 1
        }
    }

    /// Bytes sent back per byte received, for 48-byte requests: a reply or a kiss is 48 bytes, a
    /// drop nothing.
    var replyBytesPerRequestByte: Double { Double((admitted + kissed) * 48) / Double(total * 48) }
}

@Suite struct NTPRateLimiterTests {
    @Test func burstThenOneTokenPerInterval() {
        var limiter = NTPRateLimiter<Address>(rate: 0.5, burst: 3, kissEvery: 1, seed: 1)
        var decisions: [NTPRateLimitDecision] = (0..<5).map { _ in limiter.decide(Address(1), at: start) }
        decisions.append(limiter.decide(Address(2), at: start))  // buckets are per client
        decisions.append(limiter.decide(Address(1), at: start.advanced(by: .seconds(1))))  // half a token
        decisions.append(limiter.decide(Address(1), at: start.advanced(by: .seconds(2))))
        decisions.append(limiter.decide(Address(1), at: start.advanced(by: .seconds(2))))
        #expect(decisions == [.admit, .admit, .admit, .kiss(poll: 1), .kiss(poll: 1), .admit, .kiss(poll: 1), .admit, .kiss(poll: 1)])
    }

    /// The table never grows past its capacity (rounded up to whole buckets of 8), whatever comes.
    @Test func capacityIsBounded() {
        var limiter = NTPRateLimiter<Address>(rate: 1, burst: 2, capacity: 100, seed: 7)
        #expect(limiter.capacity == 104)
        var time = start
        for client in 0..<1000 {
            time = time.advanced(by: .milliseconds(1))
            _ = limiter.decide(Address(client), at: time)
            _ = limiter.decide(Address(client), at: time)
        }
        #expect(limiter.trackedClients <= 104)
        #expect(limiter.trackedClients + limiter.evictions == 1000)
    }

    /// A full bucket gives up the entry of its least recently seen client; a forgotten client comes
    /// back with a full bucket, a remembered one does not.
    @Test func theLeastRecentlySeenClientIsForgotten() {
        // Capacity 8: one bucket, so every client hashes to it.
        var limiter = NTPRateLimiter<Address>(rate: 0.001, burst: 1, capacity: 8, kissEvery: 0, seed: 3)
        var time = start
        func at(_ client: Int) -> NTPRateLimitDecision {
            time = time.advanced(by: .milliseconds(1))
            return limiter.decide(Address(client), at: time)
        }
        for client in 0..<8 { #expect(at(client) == .admit) }  // each spends its one token
        #expect(at(0) == .drop)  // client 0 is seen again: now 1 is the least recently seen
        #expect(limiter.trackedClients == 8 && limiter.evictions == 0)
        #expect(at(8) == .admit)  // takes client 1's entry
        #expect(limiter.evictions == 1)
        #expect(at(0) == .drop)  // still remembered, still over its limit
        #expect(at(1) == .admit)  // forgotten, so new again (it takes client 2's entry)
        #expect(at(3) == .drop)  // remembered
        #expect(at(2) == .admit)  // forgotten
        #expect(limiter.evictions == 3)
    }

    /// 60,000 distinct clients, each well within 2 requests/s, at 50,000 requests/s in all through a
    /// 10,000-entry table: every request is admitted, each in one bucket's work (the old table
    /// scanned all its entries per new client once full, and did not finish in a minute).
    @Test(.timeLimit(.minutes(1)))
    func sixtyThousandInLimitClientsAreAllAdmitted() {
        var limiter = NTPRateLimiter<Address>(rate: 2, burst: 8, capacity: 10_000, seed: 42)
        var time = start
        var tally = Tally()
        let clients = 60_000
        for _ in 0..<3 {
            for client in 0..<clients {
                time = time.advanced(by: .microseconds(20))
                tally.count(limiter.decide(Address(client), at: time))
            }
        }
        #expect(tally.admitted == 3 * clients)
        #expect(limiter.trackedClients == 10_000)
        #expect(limiter.evictions == 3 * clients - 10_000)
    }

    /// One address flooding among that churn is still limited: it stays the most recently seen of
    /// its bucket, so its empty bucket is never forgotten.
    @Test func aFloodStaysLimitedAmongChurn() {
        var limiter = NTPRateLimiter<Address>(rate: 2, burst: 8, capacity: 10_000, seed: 42)
        var time = start
        var flood = Tally()
        var others = Tally()
        let flooder = Address(1_000_000)
        for round in 0..<3 {
            for client in 0..<60_000 {
                time = time.advanced(by: .microseconds(20))
                others.count(limiter.decide(Address(client), at: time))
                if client % 10 == round % 10 { flood.count(limiter.decide(flooder, at: time)) }
            }
        }
        let seconds = Double(time.nanoseconds - start.nanoseconds) / 1e9  // 3.6 s
        #expect(others.admitted == others.total)
        #expect(flood.admitted <= 8 + Int(2 * seconds) + 1, "\(flood.admitted) admitted in \(seconds) s")
        #expect(flood.admitted >= 8 + Int(2 * seconds) - 1)
    }

    /// A flood from one (perhaps spoofed) address: admitted as far as its tokens go, the first
    /// over-limit request and one in 16 after kissed, the rest dropped, so the server sends back
    /// about a sixteenth of the bytes it receives.
    @Test func aFloodFromOneAddressGetsOneKissInSixteen() {
        var limiter = NTPRateLimiter<Address>(rate: 2, burst: 8, seed: 9)
        var tally = Tally()
        var time = start
        let requests = 100_000
        for _ in 0..<requests {
            time = time.advanced(by: .microseconds(100))  // 10,000 requests/s for 10 s
            tally.count(limiter.decide(Address(5), at: time))
        }
        #expect(tally.admitted >= 8 + 20 - 1 && tally.admitted <= 8 + 20)
        let overLimit = requests - tally.admitted
        #expect(tally.kissed == (overLimit + 15) / 16)
        #expect(tally.kissPolls == [-1])  // 2 requests/s: one per 2^-1 s
        #expect(tally.replyBytesPerRequestByte < 0.07, "\(tally.replyBytesPerRequestByte)")
    }

    @Test func kissEveryZeroNeverKisses() {
        var limiter = NTPRateLimiter<Address>(rate: 1, burst: 1, kissEvery: 0, seed: 9)
        var tally = Tally()
        for _ in 0..<100 { tally.count(limiter.decide(Address(5), at: start)) }
        #expect(tally.admitted == 1 && tally.kissed == 0 && tally.dropped == 99)
    }

    /// A kiss asks for log2 of the interval the limit allows, rounded up, within −7…17.
    @Test(arguments: [
        (1.0, 0), (2, -1), (0.5, 1), (0.3, 2), (0.001, 10), (1 / 64.0, 6), (0, 17), (1e-9, 17), (1000, -7),
    ] as [(Double, Int8)])
    func theKissAsksForTheLimitersInterval(rate: Double, poll: Int8) {
        var limiter = NTPRateLimiter<Address>(rate: rate, burst: 1, seed: 1)
        #expect(limiter.minimumPoll == poll)
        #expect(limiter.decide(Address(1), at: start) == .admit)
        #expect(limiter.decide(Address(1), at: start) == .kiss(poll: poll))
    }

    /// A normal reply's poll is the client's, raised to the limit's interval and capped at 17.
    @Test(arguments: [(-4, 0), (0, 0), (6, 6), (17, 17), (100, 17), (.min, 0)] as [(Int8, Int8)])
    func theReplyPollIsNeverBelowTheLimit(requested: Int8, expected: Int8) {
        let limiter = NTPRateLimiter<Address>(rate: 1, burst: 8, seed: 1)
        #expect(limiter.replyPoll(requested: requested) == expected)
        let unlimited = NTPRateLimiter<Address>(rate: .infinity, burst: 8, seed: 1)
        #expect(unlimited.replyPoll(requested: requested) == min(17, max(-7, requested)))
    }

    @Test func noLimitAdmitsEverythingAndTracksNothing() {
        var limiter = NTPRateLimiter<Address>(rate: .infinity, burst: 1, seed: 1)
        for client in 0..<100 { #expect(limiter.decide(Address(client % 3), at: start) == .admit) }
        #expect(limiter.trackedClients == 0)
    }

    /// Requests judged slightly out of order (two sockets) neither mint tokens nor lose any.
    @Test func anEarlierTimeAddsNoTokens() {
        var limiter = NTPRateLimiter<Address>(rate: 1, burst: 2, kissEvery: 1, seed: 1)
        let later = start.advanced(by: .seconds(10))
        #expect(limiter.decide(Address(1), at: later) == .admit)
        #expect(limiter.decide(Address(1), at: start) == .admit)
        #expect(limiter.decide(Address(1), at: start) == .kiss(poll: 0))
        #expect(limiter.decide(Address(1), at: later.advanced(by: .seconds(1))) == .admit)
    }

    /// The hash is the limiter's own, keyed by the seed, not `Hasher` (seeded anew in each process):
    /// how clients fall into a small table's buckets is the same in every run for a seed, and
    /// another seed spreads them otherwise.
    @Test func theTableIsDeterministicForASeed() {
        /// For 8 groups of 12 clients, each into a fresh 16-entry table (two buckets of 8): how many
        /// had to be forgotten, which is how far past 8 the fuller bucket went.
        func overflows(seed: UInt64) -> [Int] {
            (0..<8).map { group in
                var limiter = NTPRateLimiter<Address>(rate: 1, burst: 1, capacity: 16, seed: seed)
                for client in 12 * group..<12 * group + 12 { _ = limiter.decide(Address(client), at: start) }
                return limiter.evictions
            }
        }
        #expect(overflows(seed: 11) == [1, 0, 0, 0, 1, 0, 1, 0])
        #expect(overflows(seed: 12) == [0, 0, 0, 0, 1, 0, 0, 0])
    }
}
