import HTTPTypes
import TimeSync

extension ServerClock {
    /// Feeds a measurement (from an active measurement, such as `HTTPTimeSource` of
    /// TimeSyncAsyncHTTPClient) to the clock as its one refined sample
    /// (`HTTPTimeMeasurement.refinedSample`).
    /// - Parameter measurement: The measurement.
    package func calibrate(with measurement: HTTPTimeMeasurement) {
        calibrate(with: measurement.refinedSample)
    }

    /// Calibrates from an ordinary API response: the passive entry point for any HTTP client.
    ///
    /// A rejected response (cached, replayed, malformed) leaves the calibration unchanged and is
    /// reported with `reject(source:reason:)`, so subscribers to the clock's events see it.
    /// - Parameters:
    ///   - observer: Source name and header policy.
    ///   - status: The response's status code.
    ///   - headers: The response's header fields (name/value pairs).
    ///   - requestSent: The monotonic instant just before the request was sent.
    ///   - responseReceived: The monotonic instant just after the response head arrived.
    ///   - nonce: The nonce sent in `TimeSync-Nonce`, if any.
    /// - Returns: The sample used.
    /// - Throws: `HTTPTimeError` for a rejected response.
    @discardableResult
    package func observe(
        _ observer: HTTPTimeObserver, status: Int, headers: some Sequence<(name: String, value: String)>,
        requestSent: MonotonicInstant, responseReceived: MonotonicInstant, nonce: String? = nil
    ) throws(HTTPTimeError) -> HTTPTimeObservation {
        do {
            let observation = try observer.observe(
                status: status, headers: headers, requestSent: requestSent, responseReceived: responseReceived,
                nonce: nonce)
            calibrate(with: observation.sample)
            return observation
        } catch {
            reject(source: observer.source, reason: error.description)
            throw error
        }
    }

    /// Calibrates from an ordinary API response given as `HTTPFields`; otherwise the same as the
    /// name/value-pair variant.
    /// - Returns: The sample used.
    /// - Throws: `HTTPTimeError` for a rejected response.
    @discardableResult
    package func observe(
        _ observer: HTTPTimeObserver, status: Int, headers: HTTPFields,
        requestSent: MonotonicInstant, responseReceived: MonotonicInstant, nonce: String? = nil
    ) throws(HTTPTimeError) -> HTTPTimeObservation {
        try observe(
            observer, status: status, headers: headers.pairs,
            requestSent: requestSent, responseReceived: responseReceived, nonce: nonce)
    }
}
