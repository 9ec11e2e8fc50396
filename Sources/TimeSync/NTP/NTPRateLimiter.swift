/// A token bucket per client, for an NTP server's rate limit.
///
/// Each client's bucket holds up to ``burst`` tokens and refills at ``rate`` tokens per second; a
/// request takes one token, and a request finding the bucket empty is over the limit. At most
/// ``capacity`` clients are tracked: when full, buckets that have refilled completely (and so carry
/// no state) are forgotten, then the least recently seen ones.
///
/// Sans-IO: the caller passes the monotonic time of each request.
public struct NTPRateLimiter<Client: Hashable & Sendable>: Sendable {
    /// Tokens added per second.
    public let rate: Double
    /// The bucket size: how many requests a client may send back to back.
    public let burst: Double
    /// The most clients tracked at once.
    public let capacity: Int

    private struct Bucket: Sendable {
        var tokens: Double
        var updated: MonotonicInstant
    }

    private var buckets: [Client: Bucket] = [:]

    /// Creates a limiter.
    /// - Parameters:
    ///   - rate: Tokens per second (requests per second sustained).
    ///   - burst: Bucket size, at least 1.
    ///   - capacity: Most clients tracked, at least 1.
    public init(rate: Double, burst: Double, capacity: Int = 10_000) {
        self.rate = max(0, rate)
        self.burst = max(1, burst)
        self.capacity = max(1, capacity)
    }

    /// The number of clients tracked.
    public var trackedClients: Int { buckets.count }

    /// Takes a token for `client` at `time`.
    /// - Returns: `true` when the request is within the limit.
    /// - Complexity: O(1) amortized; O(``capacity``) when the table is full.
    public mutating func admit(_ client: Client, at time: MonotonicInstant) -> Bool {
        var bucket = buckets[client] ?? Bucket(tokens: burst, updated: time)
        let elapsed = max(0, Double(time.nanoseconds - bucket.updated.nanoseconds) / 1e9)
        bucket.tokens = min(burst, bucket.tokens + elapsed * rate)
        bucket.updated = max(bucket.updated, time)
        let admitted = bucket.tokens >= 1
        if admitted { bucket.tokens -= 1 }
        if buckets[client] == nil && buckets.count >= capacity { evict(at: time) }
        buckets[client] = bucket
        return admitted
    }

    private mutating func evict(at time: MonotonicInstant) {
        let full = buckets.filter { _, bucket in
            bucket.tokens + max(0, Double(time.nanoseconds - bucket.updated.nanoseconds) / 1e9) * rate >= burst
        }
        for key in full.keys { buckets[key] = nil }
        while buckets.count >= capacity, let oldest = buckets.min(by: { $0.value.updated < $1.value.updated }) {
            buckets[oldest.key] = nil
        }
    }
}
