#if AsyncHTTPClient
import TimeSync
import TimeSyncHTTP

extension HTTPTimeSource: SourceDriver {
    /// `host[:port]`.
    package var name: String { source }

    /// Measures with the precise header (a few exchanges) or the refined `Date`, as the policy says,
    /// and returns every validated sample as its response gave it: the clock's estimator intersects
    /// them with the source's earlier ones, and holds a sample that contradicts the others as a
    /// suspect until a second one confirms it, so one lying response never moves the clock.
    ///
    /// `timeout` is the whole measurement's: every request shares it (each also within the source's
    /// own ``timeout``), and none is sent once it has passed; the samples taken by then are returned.
    package func measure(until deadline: Deadline) async throws -> [OffsetSample] {
        var source = self
        source.measurementDeadline = deadline
        return try await source.collect(samples: policy == .dateOnly ? 8 : 3).samples
    }
}
#endif
