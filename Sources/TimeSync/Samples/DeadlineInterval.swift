/// When a deadline falls on the monotonic clock, as hard bounds.
///
/// A flash-sale server answers "the sale starts in R seconds". The server measured R at
/// some instant between the request leaving (t1) and the reply arriving (t4), so the deadline lies in
/// `[t1 + R, t4 + R + resolution]` — and it stays there whatever the user does to the wall clock.
public struct DeadlineInterval: Sendable, Hashable, Codable {
    /// The deadline is no earlier than this.
    public let earliest: MonotonicInstant
    /// The deadline is no later than this.
    public let latest: MonotonicInstant

    /// Creates bounds.
    /// - Throws: `SampleError` `.emptyInterval` when `earliest > latest`.
    package init(earliest: MonotonicInstant, latest: MonotonicInstant) throws(SampleError) {
        guard earliest <= latest else { throw SampleError(.emptyInterval) }
        self.earliest = earliest
        self.latest = latest
    }

    /// Decodes bounds, rejecting empty ones.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        do {
            try self.init(
                earliest: container.decode(MonotonicInstant.self, forKey: .earliest),
                latest: container.decode(MonotonicInstant.self, forKey: .latest))
        } catch let error as SampleError {
            throw DecodingError.dataCorruptedError(forKey: .latest, in: container, debugDescription: "\(error)")
        }
    }

    /// The deadline from a server-given remaining duration.
    /// - Parameters:
    ///   - remaining: What the server said was left.
    ///   - resolution: The server's rounding: `.seconds(1)` when it truncates to whole seconds.
    ///   - requestSent: t1 on the monotonic clock.
    ///   - responseReceived: t4 on the monotonic clock.
    /// - Throws: ``TimeSyncError`` ``TimeSyncError/Code/invalidValue`` for a negative remaining time
    ///   or resolution, t4 before t1, a resolution over an hour, or a remaining time over
    ///   ``maximumRemaining``.
    public static func remaining(
        _ remaining: Duration, resolution: Duration = .zero,
        requestSent: MonotonicInstant, responseReceived: MonotonicInstant
    ) throws(TimeSyncError) -> DeadlineInterval {
        do {
            return try checkedRemaining(remaining, resolution: resolution, requestSent: requestSent, responseReceived: responseReceived)
        } catch {
            throw error.timeSyncError
        }
    }

    /// ``remaining(_:resolution:requestSent:responseReceived:)``, with the layer's own error.
    package static func checkedRemaining(
        _ remaining: Duration, resolution: Duration = .zero,
        requestSent: MonotonicInstant, responseReceived: MonotonicInstant
    ) throws(SampleError) -> DeadlineInterval {
        guard remaining >= .zero else { throw SampleError(.negativeDuration) }
        guard remaining <= maximumRemaining else { throw SampleError(.timeOutOfRange) }
        _ = try SampleLimits.check(resolution: resolution)
        _ = try SampleLimits.span(from: requestSent, to: responseReceived)
        return try DeadlineInterval(
            earliest: requestSent.advanced(by: remaining),
            latest: responseReceived.advanced(by: remaining + resolution))
    }

    /// The longest remaining time a server may announce: 100 years.
    public static let maximumRemaining: Duration = .seconds(100 * 365 * 86_400)

    /// The middle of the bounds: the best estimate of the deadline.
    public var estimate: MonotonicInstant {
        MonotonicInstant(nanoseconds: OffsetInterval(uncheckedLower: earliest.nanoseconds, upper: latest.nanoseconds).midpoint)
    }
}
