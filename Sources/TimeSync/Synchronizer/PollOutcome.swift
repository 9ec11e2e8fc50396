/// What happened to one poll of a source, in the terms every protocol shares: each transport's error
/// codes say which of these they are (`CodedError.pollOutcome`), so the synchronizer never reads a
/// protocol's error.
package enum PollOutcome: Sendable, Hashable {
    /// A usable reply.
    case sample
    /// No usable reply: timeout, network or DNS error, or a rejected reply. Back off and retry.
    case failure
    /// The server answered that its own clock is not synchronized. Polled as after a failure.
    case unsynchronized
    /// Two different replies came to one request: someone on the path answered besides the server.
    /// Polled as after a failure.
    case conflicting
    /// The server asked to be polled less often: NTP's `RATE` kiss, HTTP `429 Too Many Requests`
    /// without a usable `Retry-After`. This server's shortest interval doubles, and becomes at least
    /// `interval` when the server said how often it may be asked (a `RATE` kiss's poll field), up to
    /// the policy's longest interval.
    case slowDown(interval: Duration?)
    /// The server answered but asked not to be asked again for this long: HTTP `429` or `503` with a
    /// `Retry-After`. The next poll waits at least this long (brought within
    /// `0...longestRetryAfter`: see ``longestRetryAfter``), and at least what a failure would wait.
    case retryAfter(Duration)
    /// The server asked never to be asked again (NTP's `DENY` and `RSTR` kisses).
    case stop

    /// The longest wait a server's request to come back later is honoured for: one day. A server that
    /// asks for more is asked again after a day, which keeps a source whose server misconfigured its
    /// `Retry-After` (or a hostile one) from going quiet forever, while any real maintenance window or
    /// rate limit fits.
    package static let longestRetryAfter: Duration = .seconds(86_400)

    /// A wait a server asked for, brought within `0...longestRetryAfter`.
    package static func boundedRetryAfter(_ wait: Duration) -> Duration {
        min(max(wait, .zero), longestRetryAfter)
    }

    /// What an error from a source's measurement means for polling: its code's meaning
    /// (`CodedError.pollOutcome`), else a failure.
    package init(failure error: any Error) {
        self = (error as? any CodedError)?.pollOutcome ?? .failure
    }
}
