/// The polling of one source, sans I/O: when to send, when to back off, when to give up, when to
/// resolve its name again. `SynchronizerCore` keeps one per source.
///
/// The transport loops: ask ``nextAction(at:)``; on `PollAction.send` exchange one packet (with
/// its own deadline) and report the outcome with ``handle(_:at:)``; on `PollAction.wait(until:)`
/// sleep until then; on `PollAction.resolve` resolve the name again (``resolved(at:)``), on
/// `PollAction.demobilize` stop. Intervals
/// follow `PollSchedule`: a burst, then backoff from the policy's minimum to its maximum, `RATE`
/// kisses raising this server's floor. Reachability is NTP's 8-bit register: each poll shifts in
/// whether it brought a usable reply.
///
/// Every instant comes from the caller, so a test drives the poller through hours of polling with a
/// hand-moved clock and no sleeps.
package struct SourcePoller: Sendable, Hashable {
    /// The intervals followed.
    package private(set) var schedule: PollSchedule
    /// The last eight polls, newest in the lowest bit: 1 for a usable reply (NTP's `reach`).
    package private(set) var reachability: UInt8 = 0
    /// When the next request is due.
    package private(set) var nextPoll: MonotonicInstant
    /// Why ``nextPoll`` is when it is: recorded where each rule sets it.
    package private(set) var nextPollReason: PollReason = .burst
    /// Whether a request is out and its outcome not yet handled.
    package private(set) var awaitingReply = false
    /// Polls sent in all.
    package private(set) var polls = 0
    /// Polls without a usable reply since the last one that had one (or since the start).
    package private(set) var unansweredPolls = 0
    /// How many polls in a row without a usable reply make the source unreachable. Default 8: the
    /// reachability register is all zeros.
    package var unreachableAfter: Int
    /// ``unansweredPolls`` when the name was last resolved again: an unreachable source asks again
    /// after each further ``unreachableAfter`` silent polls.
    private var unansweredAtResolve = 0
    /// The earliest instant the server allowed for the next request, after it answered with a
    /// `Retry-After` (`PollOutcome.retryAfter(_:)`): a restarted burst or a resolved name waits
    /// for it too.
    package private(set) var notBefore: MonotonicInstant?
    private var stopped = false

    /// A poller whose first request is due at `start`.
    /// - Parameters:
    ///   - policy: Burst and intervals.
    ///   - start: When to send the first request (usually now).
    ///   - unreachableAfter: Unanswered polls in a row before `PollAction.resolve` (at least 1).
    package init(policy: PollPolicy = .init(), start: MonotonicInstant, unreachableAfter: Int = 8) {
        schedule = PollSchedule(policy: policy)
        nextPoll = start
        self.unreachableAfter = max(1, unreachableAfter)
    }

    /// Whether any of the last eight polls brought a usable reply.
    package var isReachable: Bool { reachability != 0 }

    /// The one rule for "unreachable": none of the last ``unreachableAfter`` polls brought a usable
    /// reply. The status says so, and the poller asks for the name to be resolved again.
    package var isUnreachable: Bool { unansweredPolls >= unreachableAfter }

    /// Whether the server asked never to be polled again.
    package var isStopped: Bool { stopped }

    /// What to do at `now`.
    /// - Parameter now: The current monotonic instant.
    /// - Returns: `PollAction.send` when a poll is due (the poller then waits for its outcome),
    ///   `PollAction.wait(until:)` otherwise; `PollAction.resolve` or
    ///   `PollAction.demobilize` once the address is done with, for every call after.
    package mutating func nextAction(at now: MonotonicInstant) -> PollAction {
        var unlimited = RequestBudget.unlimited
        return nextAction(at: now, budget: &unlimited)
    }

    /// What to do at `now`, within a request budget shared with other sources: a due poll waits for
    /// the budget's next token.
    package mutating func nextAction(at now: MonotonicInstant, budget: inout RequestBudget) -> PollAction {
        if stopped { return .demobilize }
        if isUnreachable, unansweredPolls - unansweredAtResolve >= unreachableAfter { return .resolve }
        if awaitingReply {
            // A transport that asks again before reporting has lost the exchange: count it as failed.
            handle(.failure, at: now)
            return nextAction(at: now, budget: &budget)
        }
        guard now >= nextPoll else { return .wait(until: nextPoll) }
        guard budget.take(at: now) else {
            nextPoll = budget.nextToken(at: now)
            nextPollReason = .budget
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
    package mutating func handle(_ outcome: PollOutcome, at now: MonotonicInstant) {
        handle(outcome, at: now, error: nil)
    }

    /// Takes the outcome of the request last asked for, with the clock's error after it and, when
    /// known, how it grows with time: see `PollPolicy.targetError` and
    /// `PollSchedule.next(after:error:errorAfter:)`.
    package mutating func handle(
        _ outcome: PollOutcome, at now: MonotonicInstant, error: Duration?, errorAfter: ((Duration) -> Duration)? = nil
    ) {
        guard awaitingReply, !stopped else { return }
        awaitingReply = false
        let usable = outcome == .sample
        reachability = reachability << 1 | (usable ? 1 : 0)
        unansweredPolls = usable ? 0 : unansweredPolls + 1
        if usable { unansweredAtResolve = 0 }
        guard let wait = schedule.next(after: outcome, error: error, errorAfter: errorAfter) else {
            stopped = true
            return
        }
        nextPoll = now.advanced(by: wait)
        nextPollReason = schedule.reason
        if case .retryAfter = outcome { notBefore = nextPoll }
    }

    /// The name was resolved again after `PollAction.resolve`: polling goes on, at the policy's
    /// longest interval from `now`, until the address answers. The source stays unreachable until
    /// then (the reachability register keeps its history).
    package mutating func resolved(at now: MonotonicInstant) {
        guard !stopped else { return }
        unansweredAtResolve = unansweredPolls
        awaitingReply = false
        let longest = now.advanced(by: schedule.policy.maximumInterval)
        nextPoll = max(longest, notBefore ?? now)
        nextPollReason = nextPoll == longest ? .resolve : .retryAfter
    }

    /// Starts a new burst at `now`: after the network came back, the device woke, or the clock was
    /// found to need samples soon. The backoff, any `RATE` floor and any `Retry-After` are kept.
    package mutating func restartBurst(at now: MonotonicInstant) {
        guard !stopped else { return }
        schedule.restartBurst()
        guard !awaitingReply else { return }
        nextPoll = min(nextPoll, now)
        nextPollReason = .burst
        if let notBefore, notBefore > nextPoll {
            nextPoll = notBefore
            nextPollReason = .retryAfter
        }
    }
}
