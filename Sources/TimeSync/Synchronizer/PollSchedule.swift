/// The poll timing of one source: an initial burst, then polls whose interval doubles from the
/// policy's minimum up to its maximum (exponential backoff; failures back off the same way), a
/// `RATE` kiss doubling the interval and raising this server's floor to it (or to the interval the
/// server asked for, when longer, up to the policy's maximum), `DENY`/`RSTR` ending it,
/// a `Retry-After` delaying the next poll by at least what the server asked.
///
/// Sans-IO: the transport polls, reports the outcome to ``next(after:)`` and sleeps for the returned
/// interval.
package struct PollSchedule: Sendable, Hashable {
    /// The policy this schedule follows.
    package let policy: PollPolicy
    /// Burst requests still to send.
    package private(set) var burstRemaining: Int
    /// The current steady poll interval.
    package private(set) var interval: Duration
    /// This server's floor: the policy's minimum, raised by `RATE` kisses.
    package private(set) var floor: Duration
    /// Why the wait last returned is what it is.
    package private(set) var reason: PollReason = .burst

    /// A schedule at the start of its burst.
    package init(policy: PollPolicy = .init()) {
        self.policy = policy
        burstRemaining = policy.burstCount
        interval = policy.minimumInterval
        floor = policy.minimumInterval
    }

    /// The wait before the next poll, or `nil` when this server must not be polled again.
    /// - Parameters:
    ///   - outcome: What the poll just made gave.
    ///   - error: The clock's error after the poll (half the width of its bounds), for
    ///     `PollPolicy.targetError`; `nil` when unknown.
    ///   - errorAfter: The clock's error a given wait after the poll, as its bounds widen with
    ///     time: the wait is halved (down to the floor) until the error at its end is within the
    ///     target. `nil`: only the error now counts.
    package mutating func next(
        after outcome: PollOutcome, error: Duration?, errorAfter: ((Duration) -> Duration)? = nil
    ) -> Duration? {
        if outcome == .sample, burstRemaining == 0, let target = policy.targetError, let error {
            if error > target {
                interval = max(floor, interval / 2)
                reason = .targetError
                return interval
            }
            var wait = error * 2 > target ? max(interval, floor) : next(after: outcome)
            if let errorAfter, var proposed = wait {
                while proposed > floor, errorAfter(proposed) > target { proposed = max(floor, proposed / 2) }
                interval = proposed
                wait = proposed
            }
            reason = wait == policy.maximumInterval ? .maximumInterval : .targetError
            return wait
        }
        return next(after: outcome)
    }

    /// The wait before the next poll, or `nil` when this server must not be polled again.
    /// - Parameter outcome: What the poll just made gave.
    package mutating func next(after outcome: PollOutcome) -> Duration? {
        switch outcome {
        case .stop:
            return nil
        case .retryAfter(let wait):
            // Counted as a failure (the backoff and the burst go on as after one), and never sooner
            // than the server asked.
            let backoff = next(after: .failure) ?? policy.maximumInterval
            let asked = PollOutcome.boundedRetryAfter(wait)
            if asked > backoff { reason = .retryAfter }
            return max(backoff, asked)
        case .slowDown(let asked):
            burstRemaining = 0
            floor = min(max(max(floor, interval) * 2, asked ?? .zero), policy.maximumInterval)
            interval = max(interval * 2, floor)
            interval = min(interval, max(policy.maximumInterval, floor))
            reason = .slowDown
            return interval
        case .sample, .failure, .unsynchronized, .conflicting:
            if burstRemaining > 1 {
                burstRemaining -= 1
                reason = .burst
                return policy.burstInterval
            }
            if burstRemaining == 1 {
                // The burst is over: the first steady interval is the floor.
                burstRemaining = 0
                interval = floor
                reason = steadyReason
                return interval
            }
            interval = min(interval * 2, policy.maximumInterval)
            interval = max(interval, floor)
            reason = steadyReason
            return interval
        }
    }

    /// Why the steady interval is what it is: the maximum reached, a floor raised by `RATE`, or
    /// the backoff.
    private var steadyReason: PollReason {
        if interval >= policy.maximumInterval { return .maximumInterval }
        return floor > policy.minimumInterval && interval == floor ? .slowDown : .backoff
    }

    /// Starts a new burst, as at the start; the steady interval then starts again from the floor.
    /// A server that sent `RATE` (its floor is above the policy's minimum) gets no burst: it asked for
    /// fewer requests, not more.
    package mutating func restartBurst() {
        guard floor <= policy.minimumInterval else { return }
        burstRemaining = policy.burstCount
        interval = floor
    }
}
