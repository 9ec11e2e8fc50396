/// Why a source's next poll comes when it does: the rule of its schedule that set the instant.
package enum PollReason: String, Sendable, Hashable, Codable, CaseIterable {
    /// The source is in its initial burst, or in one restarted by a resynchronization.
    case burst
    /// The interval the clock's error allows: the longest wait after which the error stays within
    /// `PollPolicy.targetError`.
    case targetError
    /// Polls without a usable reply (or, with no target error, every poll) double the interval
    /// toward `PollPolicy.maximumInterval`.
    case backoff
    /// The server asked not to be asked again before this instant (HTTP `Retry-After`).
    case retryAfter
    /// The server asked to be polled less often (NTP's `RATE` kiss, HTTP `429`): its shortest
    /// interval was raised.
    case slowDown
    /// The poll is due, but the synchronizer's request budget has no token before this instant.
    case budget
    /// The source stopped answering and its name was resolved again: it is polled at the longest
    /// interval until it answers.
    case resolve
    /// The interval reached `PollPolicy.maximumInterval`.
    case maximumInterval
}
