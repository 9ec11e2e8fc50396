import TimeSync

/// When a request left and its response arrived, on the monotonic clock: what any sample of the
/// exchange needs.
package struct HTTPExchangeInstants: Sendable, Hashable {
    /// Just before the request was sent (t1).
    package var requestSent: MonotonicInstant
    /// Just after the response arrived (t4).
    package var responseReceived: MonotonicInstant

    /// Creates the pair.
    package init(requestSent: MonotonicInstant, responseReceived: MonotonicInstant) {
        self.requestSent = requestSent
        self.responseReceived = responseReceived
    }

    /// A sample from the server time (and, when it says, its processing time) your API returns in
    /// its body, such as `{"serverTime": 1732390000123, "processingMs": 4}`.
    /// - Parameters:
    ///   - source: The source name.
    ///   - serverTime: The server's time as it answered (read as late as it could).
    ///   - processingTime: How long it worked on the request before `serverTime`; `nil` when it does
    ///     not say (the bounds then span the whole round trip).
    ///   - resolution: The resolution of `serverTime` (a millisecond for a millisecond timestamp).
    /// - Throws: `HTTPTimeError.inconsistentTimestamps` for values no honest exchange could give.
    package func sample(
        source: String, serverTime: UnixTime, processingTime: Duration? = nil, resolution: Duration = .zero
    ) throws(HTTPTimeError) -> OffsetSample {
        do {
            if let processingTime {
                return try OffsetSample.stamped(
                    source: source, serverTime: serverTime, processingTime: processingTime, requestSent: requestSent,
                    responseReceived: responseReceived, serverUncertainty: resolution)
            }
            if resolution > .zero {
                return try OffsetSample.timestamp(
                    source: source, serverTime: serverTime, resolution: resolution, requestSent: requestSent,
                    responseReceived: responseReceived)
            }
            return try OffsetSample.exchange(
                source: source, requestSent: requestSent, serverReceive: serverTime, serverTransmit: serverTime,
                responseReceived: responseReceived)
        } catch {
            throw HTTPTimeError(.inconsistentTimestamps, underlying: error)
        }
    }
}
