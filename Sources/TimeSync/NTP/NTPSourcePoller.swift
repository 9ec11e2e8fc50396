/// What an ``NTPSourcePoller`` asks its transport to do next.
public enum NTPPollAction: Sendable, Hashable {
    /// Send one request now, then report its outcome with ``NTPSourcePoller/handle(_:at:)``.
    case send
    /// Nothing is due before this instant: sleep until then and ask again.
    case wait(until: MonotonicInstant)
    /// The address has not answered for ``NTPSourcePoller/unreachableAfter`` polls in a row: resolve
    /// the server's name again (it may have moved) and poll what it resolves to now.
    case resolve
    /// Stop polling this address for good (the server sent `DENY` or `RSTR`) and remove it from the
    /// clock.
    case demobilize
}

/// The polling of one server address, sans I/O: when to send, when to back off, when to give up, when
/// to resolve the name again.
///
/// The transport loops: ask ``nextAction(at:)``; on ``NTPPollAction/send`` exchange one packet (with
/// its own deadline) and report the outcome with ``handle(_:at:)``; on ``NTPPollAction/wait(until:)``
/// sleep until then; on ``NTPPollAction/resolve`` or ``NTPPollAction/demobilize`` stop. Intervals
/// follow ``NTPPollSchedule``: a burst, then backoff from the policy's minimum to its maximum, `RATE`
/// kisses raising this server's floor. Reachability is NTP's 8-bit register: each poll shifts in
/// whether it brought a usable reply.
///
/// Every instant comes from the caller, so a test drives the poller through hours of polling with a
/// hand-moved clock and no sleeps.
public struct NTPSourcePoller: Sendable, Hashable {
    /// The intervals followed.
    public private(set) var schedule: NTPPollSchedule
    /// The last eight polls, newest in the lowest bit: 1 for a usable reply (NTP's `reach`).
    public private(set) var reachability: UInt8 = 0
    /// When the next request is due.
    public private(set) var nextPoll: MonotonicInstant
    /// Whether a request is out and its outcome not yet handled.
    public private(set) var awaitingReply = false
    /// Polls sent in all.
    public private(set) var polls = 0
    /// Polls without a usable reply since the last one that had one (or since the start).
    public private(set) var unansweredPolls = 0
    /// How many unanswered polls in a row make the poller ask for the name to be resolved again.
    /// Default 8: the reachability register is all zeros.
    public var unreachableAfter: Int
    /// The earliest instant the server allowed for the next request, after it answered with a
    /// `Retry-After` (``NTPPollOutcome/retryAfter(_:)``): a restarted burst or a resolved name waits
    /// for it too.
    public private(set) var notBefore: MonotonicInstant?
    private var stopped = false

    /// A poller whose first request is due at `start`.
    /// - Parameters:
    ///   - policy: Burst and intervals.
    ///   - start: When to send the first request (usually now).
    ///   - unreachableAfter: Unanswered polls in a row before ``NTPPollAction/resolve`` (at least 1).
    public init(policy: NTPPollPolicy = .init(), start: MonotonicInstant, unreachableAfter: Int = 8) {
        schedule = NTPPollSchedule(policy: policy)
        nextPoll = start
        self.unreachableAfter = max(1, unreachableAfter)
    }

    /// Whether any of the last eight polls brought a usable reply.
    public var isReachable: Bool { reachability != 0 }

    /// What to do at `now`.
    /// - Parameter now: The current monotonic instant.
    /// - Returns: ``NTPPollAction/send`` when a poll is due (the poller then waits for its outcome),
    ///   ``NTPPollAction/wait(until:)`` otherwise; ``NTPPollAction/resolve`` or
    ///   ``NTPPollAction/demobilize`` once the address is done with, for every call after.
    public mutating func nextAction(at now: MonotonicInstant) -> NTPPollAction {
        var unlimited = RequestBudget.unlimited
        return nextAction(at: now, budget: &unlimited)
    }

    /// What to do at `now`, within a request budget shared with other sources: a due poll waits for
    /// the budget's next token.
    public mutating func nextAction(at now: MonotonicInstant, budget: inout RequestBudget) -> NTPPollAction {
        if stopped { return .demobilize }
        if unansweredPolls >= unreachableAfter { return .resolve }
        if awaitingReply {
            // A transport that asks again before reporting has lost the exchange: count it as failed.
            handle(.failure, at: now)
            return nextAction(at: now, budget: &budget)
        }
        guard now >= nextPoll else { return .wait(until: nextPoll) }
        guard budget.take(at: now) else {
            nextPoll = budget.nextToken(at: now)
            return .wait(until: nextPoll)
        }
        awaitingReply = true
        polls += 1
        return .send
    }

    /// Takes the outcome of the request last asked for.
    /// - Parameters:
    ///   - outcome: A usable reply, a failure (timeout, network error, rejected reply), or a kiss.
    ///   - now: When the outcome was known; the next poll is timed from here.
    public mutating func handle(_ outcome: NTPPollOutcome, at now: MonotonicInstant) {
        handle(outcome, at: now, error: nil)
    }

    /// Takes the outcome of the request last asked for, with the clock's error after it: see
    /// ``NTPPollPolicy/targetError``.
    public mutating func handle(_ outcome: NTPPollOutcome, at now: MonotonicInstant, error: Duration?) {
        guard awaitingReply, !stopped else { return }
        awaitingReply = false
        let usable = outcome == .sample
        reachability = reachability << 1 | (usable ? 1 : 0)
        unansweredPolls = usable ? 0 : unansweredPolls + 1
        guard let wait = schedule.next(after: outcome, error: error) else {
            stopped = true
            return
        }
        nextPoll = now.advanced(by: wait)
        if case .retryAfter = outcome { notBefore = nextPoll }
    }

    /// The name was resolved again after ``NTPPollAction/resolve``: polling goes on, at the policy's
    /// longest interval from `now`, until the address answers (the reachability register keeps its
    /// history).
    public mutating func resolved(at now: MonotonicInstant) {
        guard !stopped else { return }
        unansweredPolls = 0
        awaitingReply = false
        nextPoll = max(now.advanced(by: schedule.policy.maximumInterval), notBefore ?? now)
    }

    /// Starts a new burst at `now`: after the network came back, the device woke, or the clock was
    /// found to need samples soon. The backoff, any `RATE` floor and any `Retry-After` are kept.
    public mutating func restartBurst(at now: MonotonicInstant) {
        guard !stopped else { return }
        schedule.restartBurst()
        guard !awaitingReply else { return }
        nextPoll = min(nextPoll, now)
        if let notBefore { nextPoll = max(nextPoll, notBefore) }
    }
}
