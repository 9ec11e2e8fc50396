/// When a deadline falls on the monotonic clock, as hard bounds.
///
/// Seed 003: a flash-sale server answers "the sale starts in R seconds". The server measured R at
/// some instant between the request leaving (t1) and the reply arriving (t4), so the deadline lies in
/// `[t1 + R, t4 + R + resolution]` — and it stays there whatever the user does to the wall clock.
public struct DeadlineInterval: Sendable, Hashable, Codable {
    /// The deadline is no earlier than this.
    public let earliest: MonotonicInstant
    /// The deadline is no later than this.
    public let latest: MonotonicInstant

    /// Creates bounds.
    /// - Throws: ``SampleError`` `.emptyInterval` when `earliest > latest`.
    public init(earliest: MonotonicInstant, latest: MonotonicInstant) throws(SampleError) {
        guard earliest <= latest else { throw SampleError(.emptyInterval) }
        self.earliest = earliest
        self.latest = latest
    }

    /// The deadline from a server-given remaining duration.
    /// - Parameters:
    ///   - remaining: What the server said was left.
    ///   - resolution: The server's rounding: `.seconds(1)` when it truncates to whole seconds.
    ///   - requestSent: t1 on the monotonic clock.
    ///   - responseReceived: t4 on the monotonic clock.
    /// - Throws: ``SampleError`` for a negative remaining time or resolution, or t4 before t1.
    public static func remaining(
        _ remaining: Duration, resolution: Duration = .zero,
        requestSent: MonotonicInstant, responseReceived: MonotonicInstant
    ) throws(SampleError) -> DeadlineInterval {
        guard remaining >= .zero else { throw SampleError(.negativeDuration) }
        guard resolution >= .zero else { throw SampleError(.negativeResolution) }
        guard responseReceived >= requestSent else { throw SampleError(.replyBeforeRequest) }
        return try DeadlineInterval(
            earliest: requestSent.advanced(by: remaining),
            latest: responseReceived.advanced(by: remaining + resolution))
    }

    /// The middle of the bounds: the best estimate of the deadline.
    public var estimate: MonotonicInstant {
        MonotonicInstant(nanoseconds: earliest.nanoseconds + (latest.nanoseconds - earliest.nanoseconds) / 2)
    }
}
