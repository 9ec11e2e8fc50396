/// A cap on requests per hour, shared by every source of a synchronizer: a token bucket that holds
/// up to ``burst`` requests and refills at ``requestsPerHour``. For mobile apps that must not spend
/// the radio or the battery on time: whatever the schedule or the triggers ask, no more than this
/// is sent.
///
/// Sans-IO: the caller passes the instants.
package struct RequestBudget: Sendable, Hashable {
    /// Requests allowed per hour in the long run; `nil` for no cap.
    package let requestsPerHour: Double?
    /// Requests that may go at once (an initial burst to several servers).
    package let burst: Double
    /// Tokens in the bucket at ``updated``.
    package private(set) var tokens: Double
    /// When ``tokens`` was last brought up to date.
    package private(set) var updated: MonotonicInstant?

    /// No cap.
    package static let unlimited = RequestBudget(requestsPerHour: nil)

    /// Creates a budget, full.
    /// - Parameters:
    ///   - requestsPerHour: The long-run cap; `nil`, zero or less, or not finite means no cap.
    ///   - burst: How many may go at once (at least 1; default 8, a burst to a handful of servers).
    package init(requestsPerHour: Double?, burst: Double = 8) {
        if let rate = requestsPerHour, rate.isFinite, rate > 0 {
            self.requestsPerHour = rate
        } else {
            self.requestsPerHour = nil
        }
        self.burst = burst.isFinite ? max(1, burst) : 8
        tokens = self.burst
    }

    private var perNanosecond: Double { (requestsPerHour ?? 0) / 3.6e12 }

    private mutating func refill(at now: MonotonicInstant) {
        guard requestsPerHour != nil else { return }
        if let updated, now > updated {
            tokens = min(burst, tokens + Double(now.nanoseconds.saturatingSubtract(updated.nanoseconds)) * perNanosecond)
        }
        if updated.map({ now > $0 }) ?? true { updated = now }
    }

    /// Takes one request's token if there is one.
    /// - Returns: Whether the request may go now.
    package mutating func take(at now: MonotonicInstant) -> Bool {
        guard requestsPerHour != nil else { return true }
        refill(at: now)
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }

    /// When the next token will be there (now when one is).
    package func nextToken(at now: MonotonicInstant) -> MonotonicInstant {
        guard requestsPerHour != nil else { return now }
        var copy = self
        copy.refill(at: now)
        guard copy.tokens < 1 else { return now }
        let wait = ((1 - copy.tokens) / perNanosecond).rounded(.up)
        return now.advanced(by: .nanoseconds(Int64(clamping: wait)))
    }
}
