/// One observation of a server's clock: hard bounds on θ = server time − monotonic time.
///
/// Every transport produces these (NTP exchanges, HTTP headers, a server's remaining-time value) and
/// every estimator consumes them. Build them with the static constructors, which validate the
/// timestamps and never produce an empty interval.
public struct OffsetSample: Sendable, Hashable, Codable {
    /// The source (server) the sample came from: samples of one source are filtered together.
    public var source: String
    /// Bounds on θ = server time − monotonic time, in nanoseconds, valid at ``time``.
    public var offset: OffsetInterval
    /// The monotonic instant the reply arrived (t4): the bounds refer to this instant.
    public var time: MonotonicInstant
    /// How long the exchange took on the local clock (t4 − t1), in nanoseconds. The local clock's
    /// drift during this span is added to the bounds by the estimators.
    public var span: Int64
    /// Network delay: the round trip less the server's processing time, in nanoseconds.
    public var delay: Int64

    /// Creates a sample from already computed bounds.
    /// - Throws: ``SampleError`` for an empty source name or a negative span or delay.
    public init(source: String, offset: OffsetInterval, time: MonotonicInstant, span: Int64, delay: Int64) throws(SampleError) {
        guard !source.isEmpty else { throw SampleError(.emptySourceName) }
        guard span >= 0 else { throw SampleError(.replyBeforeRequest) }
        guard delay >= 0 else { throw SampleError(.negativeDelay) }
        self.source = source
        self.offset = offset
        self.time = time
        self.span = span
        self.delay = delay
    }

    /// A sample from a four-timestamp exchange (NTP, or an HTTP server that reports its receive and
    /// transmit times).
    ///
    /// - Parameters:
    ///   - source: The server's name.
    ///   - clientSend: t1, when the request left, on the monotonic clock.
    ///   - serverReceive: t2, the server's clock when the request arrived.
    ///   - serverTransmit: t3, the server's clock when the reply left.
    ///   - clientReceive: t4, when the reply arrived, on the monotonic clock.
    ///   - serverUncertainty: How far the server's own stamps may be off (its precision, or NTP root
    ///     delay / 2 + root dispersion); widens the bounds on both sides.
    /// - Returns: θ ∈ [t3 − t4, t2 − t1] widened by `serverUncertainty`.
    /// - Throws: ``SampleError`` for inconsistent timestamps.
    public static func exchange(
        source: String,
        clientSend: MonotonicInstant, serverReceive: UnixTime,
        serverTransmit: UnixTime, clientReceive: MonotonicInstant,
        serverUncertainty: Duration = .zero
    ) throws(SampleError) -> OffsetSample {
        let uncertainty = serverUncertainty.nanosecondsClamped
        guard uncertainty >= 0 else { throw SampleError(.negativeUncertainty) }
        let interval = try OffsetInterval.exchange(
            t1: clientSend.nanoseconds, t2: serverReceive.nanoseconds,
            t3: serverTransmit.nanoseconds, t4: clientReceive.nanoseconds)
        let span = clientReceive.nanoseconds - clientSend.nanoseconds
        let processing = serverTransmit.nanoseconds - serverReceive.nanoseconds
        return try OffsetSample(
            source: source, offset: interval.widened(by: uncertainty), time: clientReceive,
            span: span, delay: span - processing)
    }

    /// A sample from one server timestamp of limited resolution, stamped while the request was in
    /// flight: an HTTP `Date` header (resolution one second, seed 000) or a millisecond
    /// `Response-Timestamp` header (seed 001).
    ///
    /// The server's clock read a value in `[serverTime, serverTime + resolution)` at some instant
    /// between `requestSent` and `responseReceived`, so θ ∈ [S − t4, S + resolution − t1].
    /// - Throws: ``SampleError`` for `responseReceived < requestSent` or a negative resolution.
    public static func timestamp(
        source: String, serverTime: UnixTime, resolution: Duration,
        requestSent: MonotonicInstant, responseReceived: MonotonicInstant
    ) throws(SampleError) -> OffsetSample {
        let interval = try OffsetInterval.timestamp(
            serverTime.nanoseconds, resolution: resolution.nanosecondsClamped,
            t1: requestSent.nanoseconds, t4: responseReceived.nanoseconds)
        let span = responseReceived.nanoseconds - requestSent.nanoseconds
        return try OffsetSample(source: source, offset: interval, time: responseReceived, span: span, delay: span)
    }

    /// A sample from a server that stamps its time as late as possible and reports how long it spent
    /// on the request (seed 002, ServerSync): t3 = `serverTime`, t2 = t3 − `processingTime`.
    /// - Throws: ``SampleError`` for a negative processing time or inconsistent timestamps.
    public static func stamped(
        source: String, serverTime: UnixTime, processingTime: Duration,
        requestSent: MonotonicInstant, responseReceived: MonotonicInstant,
        serverUncertainty: Duration = .zero
    ) throws(SampleError) -> OffsetSample {
        guard processingTime >= .zero else { throw SampleError(.negativeDuration) }
        return try exchange(
            source: source, clientSend: requestSent, serverReceive: serverTime.advanced(by: .zero - processingTime),
            serverTransmit: serverTime, clientReceive: responseReceived, serverUncertainty: serverUncertainty)
    }

    /// The bounds on θ at a later (or earlier) instant, when the local clock's rate error relative to the
    /// server lies in `rate` (dimensionless, e.g. ±100 ppm = ±1e-4); includes the drift during the
    /// exchange itself.
    public func offset(at instant: MonotonicInstant, rate: RateInterval) -> OffsetInterval {
        let elapsed = Double(instant.nanoseconds - time.nanoseconds)
        let during = rate.maxMagnitude * Double(span)
        return rate.age(offset, by: elapsed).widened(by: Int64(clamping: during.rounded(.up)))
    }
}
