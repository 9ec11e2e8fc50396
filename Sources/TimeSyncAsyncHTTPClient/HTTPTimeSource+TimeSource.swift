import TimeSync
import TimeSyncHTTP

extension HTTPTimeSource: TimeSource {
    /// `host[:port]`.
    public var name: String { source }

    /// Measures with the precise header (a few exchanges, the majority's refined sample) or the
    /// refined `Date`, as the policy says; the result is one refined sample. Each exchange's deadline
    /// is the shorter of `timeout` and the source's own.
    public func measure(timeout: Duration) async throws -> [OffsetSample] {
        var source = self
        source.timeout = min(timeout, self.timeout)
        return [try await source.measure(samples: policy == .dateOnly ? 8 : 3).refinedSample]
    }

    /// A `429` or `503` with `Retry-After` waits that long; a `429` without one slows polling down
    /// like NTP's `RATE` kiss; anything else is a failure.
    public func pollOutcome(for error: any Error) -> PollOutcome {
        HTTPTimeError.pollOutcome(for: error)
    }
}
