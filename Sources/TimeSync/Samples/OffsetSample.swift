/// One observation of a server's clock: hard bounds on θ = server time − monotonic time.
///
/// Every transport produces these (NTP exchanges, HTTP headers, a server's remaining-time value) and
/// every estimator consumes them. Build them with the static constructors, which validate the
/// timestamps and never produce an empty interval.
package struct OffsetSample: Sendable, Hashable, Codable {
    /// The source (server) the sample came from: samples of one source are filtered together.
    package var source: String
    /// Bounds on θ = server time − monotonic time, in nanoseconds, valid at ``time``.
    package var offset: OffsetInterval
    /// The monotonic instant the reply arrived (t4): the bounds refer to this instant.
    package var time: MonotonicInstant
    /// How long the exchange took on the local clock (t4 − t1), in nanoseconds. The local clock's
    /// drift during this span is added to the bounds by the estimators.
    package var span: Int64
    /// Network delay: the round trip less the server's processing time, in nanoseconds.
    package var delay: Int64

    /// Creates a sample from already computed bounds, checked like any input (`SampleLimits`).
    /// - Throws: `SampleError` for an empty or overlong source name, an instant outside
    ///   `SampleLimits.monotonicInstants`, a span outside `0...`\ `SampleLimits.maximumSpan`, a
    ///   delay outside `0...span`, bounds wider than the limits allow, or bounds that put the server's
    ///   time outside `SampleLimits.serverTimes`.
    package init(source: String, offset: OffsetInterval, time: MonotonicInstant, span: Int64, delay: Int64) throws(SampleError) {
        guard !source.isEmpty else { throw SampleError(.emptySourceName) }
        guard source.utf8.count <= SampleLimits.maximumSourceNameLength else { throw SampleError(.sourceNameTooLong) }
        try SampleLimits.check(monotonic: time)
        guard span >= 0 else { throw SampleError(.replyBeforeRequest) }
        guard span <= SampleLimits.maximumSpan.nanosecondsClamped else { throw SampleError(.spanTooLong) }
        guard delay >= 0, delay <= span else { throw SampleError(.negativeDelay) }
        guard offset.width <= SampleLimits.maximumWidth else { throw SampleError(.intervalTooWide) }
        // The server time the bounds imply at `time` must be a sane one, at both ends.
        let (earliest, o1) = offset.lower.addingReportingOverflow(time.nanoseconds)
        let (latest, o2) = offset.upper.addingReportingOverflow(time.nanoseconds)
        guard !o1, !o2 else { throw SampleError(.timeOutOfRange) }
        try SampleLimits.check(serverTime: UnixTime(nanoseconds: earliest))
        try SampleLimits.check(serverTime: UnixTime(nanoseconds: latest))
        self.source = source
        self.offset = offset
        self.time = time
        self.span = span
        self.delay = delay
    }

    /// Decodes a sample (from a calibration store) through the same checks as a fresh one.
    /// - Throws: `DecodingError.dataCorrupted` wrapping the `SampleError`.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        do {
            try self.init(
                source: container.decode(String.self, forKey: .source),
                offset: container.decode(OffsetInterval.self, forKey: .offset),
                time: container.decode(MonotonicInstant.self, forKey: .time),
                span: container.decode(Int64.self, forKey: .span),
                delay: container.decode(Int64.self, forKey: .delay))
        } catch let error as SampleError {
            throw DecodingError.dataCorruptedError(forKey: .offset, in: container, debugDescription: "invalid sample: \(error)")
        }
    }

    /// A sample from a four-timestamp exchange (NTP, or an HTTP server that reports its receive and
    /// transmit times).
    ///
    /// - Parameters:
    ///   - source: The server's name.
    ///   - requestSent: t1, when the request left, on the monotonic clock.
    ///   - serverReceive: t2, the server's clock when the request arrived.
    ///   - serverTransmit: t3, the server's clock when the reply left.
    ///   - responseReceived: t4, when the reply arrived, on the monotonic clock.
    ///   - serverUncertainty: How far the server's own stamps may be off (its precision, or NTP root
    ///     delay / 2 + root dispersion); widens the bounds on both sides.
    /// - Returns: θ ∈ [t3 − t4, t2 − t1] widened by `serverUncertainty`.
    /// - Throws: `SampleError` for inconsistent timestamps or a value outside `SampleLimits`.
    package static func exchange(
        source: String,
        requestSent: MonotonicInstant, serverReceive: UnixTime,
        serverTransmit: UnixTime, responseReceived: MonotonicInstant,
        serverUncertainty: Duration = .zero
    ) throws(SampleError) -> OffsetSample {
        let bounds = try ExchangeBounds(
            requestSent: requestSent, serverReceive: serverReceive, serverTransmit: serverTransmit,
            responseReceived: responseReceived, serverUncertainty: serverUncertainty)
        return try OffsetSample(source: source, offset: bounds.offset, time: responseReceived, span: bounds.span, delay: bounds.delay)
    }

    /// What an exchange's four timestamps prove, checked once: the bounds on θ, the span and the
    /// delay. A transport that validates a reply before it knows the source's name keeps these and
    /// names the sample later.
    package struct ExchangeBounds: Sendable, Hashable {
        /// θ ∈ [t3 − t4, t2 − t1], widened by the server's uncertainty.
        package var offset: OffsetInterval
        /// t4 − t1, in nanoseconds.
        package var span: Int64
        /// The span less the server's processing time, in nanoseconds.
        package var delay: Int64

        package init(
            requestSent: MonotonicInstant, serverReceive: UnixTime, serverTransmit: UnixTime, responseReceived: MonotonicInstant,
            serverUncertainty: Duration
        ) throws(SampleError) {
            let uncertainty = try SampleLimits.check(uncertainty: serverUncertainty)
            try SampleLimits.check(serverTime: serverReceive)
            try SampleLimits.check(serverTime: serverTransmit)
            span = try SampleLimits.span(from: requestSent, to: responseReceived)
            let interval = try OffsetInterval.exchange(
                t1: requestSent.nanoseconds, t2: serverReceive.nanoseconds,
                t3: serverTransmit.nanoseconds, t4: responseReceived.nanoseconds)
            // Inside the limits, and t3 − t2 ≤ t4 − t1 (the interval is not empty): no overflow.
            delay = span - (serverTransmit.nanoseconds - serverReceive.nanoseconds)
            offset = interval.widened(by: uncertainty)
        }
    }

    /// A sample from one server timestamp of limited resolution, stamped while the request was in
    /// flight: an HTTP `Date` header (resolution one second) or a millisecond
    /// `Response-Timestamp` header.
    ///
    /// The server's clock read a value in `[serverTime, serverTime + resolution)` at some instant
    /// between `requestSent` and `responseReceived`, so θ ∈ [S − t4, S + resolution − t1].
    /// - Throws: `SampleError` for `responseReceived < requestSent`, or a time, span or resolution
    ///   outside `SampleLimits`.
    package static func timestamp(
        source: String, serverTime: UnixTime, resolution: Duration,
        requestSent: MonotonicInstant, responseReceived: MonotonicInstant
    ) throws(SampleError) -> OffsetSample {
        try SampleLimits.check(serverTime: serverTime)
        let resolution = try SampleLimits.check(resolution: resolution)
        let span = try SampleLimits.span(from: requestSent, to: responseReceived)
        let interval = try OffsetInterval.timestamp(
            serverTime.nanoseconds, resolution: resolution,
            t1: requestSent.nanoseconds, t4: responseReceived.nanoseconds)
        return try OffsetSample(source: source, offset: interval, time: responseReceived, span: span, delay: span)
    }

    /// A sample from a server that stamps its time as late as possible and reports how long it spent
    /// on the request (server processing time): t3 = `serverTime`, t2 = t3 − `processingTime`.
    /// - Throws: `SampleError` for a negative processing time, inconsistent timestamps or a value
    ///   outside `SampleLimits`.
    package static func stamped(
        source: String, serverTime: UnixTime, processingTime: Duration,
        requestSent: MonotonicInstant, responseReceived: MonotonicInstant,
        serverUncertainty: Duration = .zero
    ) throws(SampleError) -> OffsetSample {
        guard processingTime >= .zero else { throw SampleError(.negativeDuration) }
        guard processingTime <= SampleLimits.maximumSpan else { throw SampleError(.spanTooLong) }
        return try exchange(
            source: source, requestSent: requestSent, serverReceive: serverTime.advanced(by: .zero - processingTime),
            serverTransmit: serverTime, responseReceived: responseReceived, serverUncertainty: serverUncertainty)
    }

    /// The bounds on θ at a later (or earlier) instant, when the local clock's rate error relative to the
    /// server lies in `rate` (dimensionless, e.g. ±100 ppm = ±1e-4); includes the drift during the
    /// exchange itself.
    package func offset(at instant: MonotonicInstant, rate: RateInterval) -> OffsetInterval {
        let elapsed = Double(instant.nanoseconds.saturatingSubtract(time.nanoseconds))
        let during = rate.maxMagnitude * Double(span)
        return rate.age(offset, by: elapsed).widened(by: Int64(clamping: during.rounded(.up)))
    }
}
