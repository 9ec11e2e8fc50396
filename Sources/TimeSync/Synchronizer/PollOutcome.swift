/// What happened to one poll of a source.
public enum PollOutcome: Sendable, Hashable {
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
