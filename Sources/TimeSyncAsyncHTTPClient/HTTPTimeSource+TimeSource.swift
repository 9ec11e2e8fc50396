import TimeSync
import TimeSyncHTTP

extension HTTPTimeSource: TimeSource {
    /// `host[:port]`.
    public var name: String { source }

    /// Measures with the precise header (a few exchanges, the majority's refined sample) or the
    /// refined `Date`, as the policy says; the result is one refined sample.
    public func measure(timeout: Duration) async throws -> [OffsetSample] {
        [try await measure(samples: policy == .dateOnly ? 8 : 3).refinedSample]
    }
}
