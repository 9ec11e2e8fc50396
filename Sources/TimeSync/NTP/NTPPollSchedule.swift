/// How often a client polls one NTP server.
public struct NTPPollPolicy: Sendable, Hashable {
    /// The floor below which the steady poll interval never goes: 16 s (NTP's `MINPOLL`, 2⁴ s).
    public static let pollFloor: Duration = .seconds(16)

    /// Requests in the initial burst. Default 4 (ntpd's and chrony's `iburst`).
    public var burstCount: Int
    /// Spacing of the burst's requests. Default 2 s.
    public var burstInterval: Duration
    /// The first steady poll interval after the burst, and the shortest; never below ``pollFloor``.
    /// Default 64 s.
    public var minimumInterval: Duration
    /// The longest poll interval the backoff reaches. Default 1024 s.
    public var maximumInterval: Duration
    /// The error the clock should keep (half the width of its bounds), when the caller reports it:
    /// a sample that leaves the error above this halves the interval (down to the floor) instead of
    /// doubling it; at most half of it, the interval doubles; between, it stays. `nil`: always back
    /// off (the interval doubles after every poll).
    public var targetError: Duration?

    /// Creates a policy; intervals below ``pollFloor`` are raised to it, a maximum below the
    /// minimum is raised to the minimum.
    public init(
        burstCount: Int = 4, burstInterval: Duration = .seconds(2), minimumInterval: Duration = .seconds(64),
        maximumInterval: Duration = .seconds(1024), targetError: Duration? = nil
    ) {
        self.targetError = targetError.map { max(.nanoseconds(1), $0) }
        self.burstCount = max(1, burstCount)
        self.burstInterval = max(.zero, burstInterval)
        self.minimumInterval = max(Self.pollFloor, minimumInterval)
        self.maximumInterval = max(self.minimumInterval, maximumInterval)
    }
}

/// What happened to one poll of a server.
public enum NTPPollOutcome: Sendable, Hashable {
    /// A usable reply.
    case sample
    /// No usable reply: timeout, network or DNS error, or a rejected reply.
    case failure
    /// A Kiss-o'-Death.
    case kiss(NTPKissAction)
    /// The server answered but asked not to be asked again for this long: HTTP `429 Too Many
    /// Requests` or `503 Service Unavailable` with a `Retry-After`. The next poll waits at least
    /// this long (brought within `0...HTTPRetryAfter.maximum`), and at least what a failure would
    /// wait.
    case retryAfter(Duration)
}

/// The poll timing of one server: an initial burst, then polls whose interval doubles from the
/// policy's minimum up to its maximum (exponential backoff; failures back off the same way), a
/// `RATE` kiss doubling the interval and raising this server's floor to it, `DENY`/`RSTR` ending it,
/// a `Retry-After` delaying the next poll by at least what the server asked.
///
/// Sans-IO: the transport polls, reports the outcome to ``next(after:)`` and sleeps for the returned
/// interval.
public struct NTPPollSchedule: Sendable, Hashable {
    /// The policy this schedule follows.
    public let policy: NTPPollPolicy
    /// Burst requests still to send.
    public private(set) var burstRemaining: Int
    /// The current steady poll interval.
    public private(set) var interval: Duration
    /// This server's floor: the policy's minimum, raised by `RATE` kisses.
    public private(set) var floor: Duration

    /// A schedule at the start of its burst.
    public init(policy: NTPPollPolicy = .init()) {
        self.policy = policy
        burstRemaining = policy.burstCount
        interval = policy.minimumInterval
        floor = policy.minimumInterval
    }

    /// The wait before the next poll, or `nil` when this server must not be polled again.
    /// - Parameters:
    ///   - outcome: What the poll just made gave.
    ///   - error: The clock's error after the poll (half the width of its bounds), for
    ///     ``NTPPollPolicy/targetError``; `nil` when unknown.
    public mutating func next(after outcome: NTPPollOutcome, error: Duration?) -> Duration? {
        if outcome == .sample, burstRemaining == 0, let target = policy.targetError, let error {
            if error > target {
                interval = max(floor, interval / 2)
                return interval
            }
            if error * 2 > target { return max(interval, floor) }
        }
        return next(after: outcome)
    }

    /// The wait before the next poll, or `nil` when this server must not be polled again.
    /// - Parameter outcome: What the poll just made gave.
    public mutating func next(after outcome: NTPPollOutcome) -> Duration? {
        switch outcome {
        case .kiss(.stopUsingServer):
            return nil
        case .retryAfter(let wait):
            // Counted as a failure (the backoff and the burst go on as after one), and never sooner
            // than the server asked.
            let backoff = next(after: .failure) ?? policy.maximumInterval
            return max(backoff, HTTPRetryAfter.clamp(wait))
        case .kiss(.reducePollRate):
            burstRemaining = 0
            floor = min(max(floor, interval) * 2, policy.maximumInterval)
            interval = max(interval * 2, floor)
            interval = min(interval, max(policy.maximumInterval, floor))
            return interval
        case .sample, .failure, .kiss(.discardReply):
            if burstRemaining > 1 {
                burstRemaining -= 1
                return policy.burstInterval
            }
            if burstRemaining == 1 {
                // The burst is over: the first steady interval is the floor.
                burstRemaining = 0
                interval = floor
                return interval
            }
            interval = min(interval * 2, policy.maximumInterval)
            interval = max(interval, floor)
            return interval
        }
    }

    /// Starts a new burst, as at the start; the steady interval then starts again from the floor.
    /// A server that sent `RATE` (its floor is above the policy's minimum) gets no burst: it asked for
    /// fewer requests, not more.
    public mutating func restartBurst() {
        guard floor <= policy.minimumInterval else { return }
        burstRemaining = policy.burstCount
        interval = floor
    }
}
