/// What a `SourcePoller` asks its transport to do next.
package enum PollAction: Sendable, Hashable {
    /// Send one request now, then report its outcome with `SourcePoller.handle(_:at:)`.
    case send
    /// Nothing is due before this instant: sleep until then and ask again.
    case wait(until: MonotonicInstant)
    /// The source has not answered for `SourcePoller.unreachableAfter` polls in a row: resolve
    /// its name again (the server may have moved) and poll what it resolves to now.
    case resolve
    /// Stop polling this source for good (it sent `DENY` or `RSTR`) and remove it from the clock.
    case demobilize
}
