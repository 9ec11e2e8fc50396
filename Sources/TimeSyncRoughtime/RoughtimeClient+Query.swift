import TimeSync
import TimeSyncWire

@available(watchOS, unavailable, message: "watchOS apps cannot use BSD sockets (Apple TN3135): use TimeSynchronizer.https() or TimeSource.https(_:)")
extension RoughtimeClient {
    /// Queries the server like `sntp` queries an NTP server: `samples` verified exchanges, one at a
    /// time, combined into one `RoughtimeQueryResult` (their signed intervals carried to the newest
    /// reply's instant and intersected).
    ///
    /// A lost datagram does not fail the query: a request whose verified reply does not come within
    /// `timeout` (datagrams that do not verify are dropped meanwhile) is sent again, up to twice
    /// `samples` requests in all, within one deadline of `samples` × `timeout` for the whole query; it
    /// fails only when no reply verified. Any other failure (nothing listening on the port, a name that
    /// does not resolve, a signed time that cannot be a sample) ends it at once.
    /// - Parameters:
    ///   - samples: How many verified exchanges to combine (at least 1; default 1).
    ///   - interval: From one request to the next (default 250 ms).
    ///   - timeout: The deadline of each exchange, resolution included (default 5 s); the query's is
    ///     `samples` times it.
    /// - Returns: The exchanges, how many requests were lost, and their combination.
    /// - Throws: `RoughtimeError.timeout` when no reply verified, saying how many requests went
    ///   unanswered and naming the last reason a datagram was refused; `RoughtimeError.contradictorySignatures`
    ///   when the signed intervals share no time; `NTPClientError` for resolution and socket failures
    ///   (`.unreachable` when nothing listens on the port); `SampleError`; `CancellationError`.
    package func query(samples: Int = 1, interval: Duration = .milliseconds(250), timeout: Duration = .seconds(5)) async throws
        -> RoughtimeQueryResult
    {
        let series = DatagramMeasurement<RoughtimeClientExchange>.Series(
            samples: samples, maxRequests: 2 * max(1, samples), interval: interval, exchangeTimeout: timeout)
        let (exchanges, requests) = try await exchanges(series: series, until: .after(timeout * series.samples, on: timeBase))
        return try RoughtimeQueryResult(exchanges: exchanges, attempts: requests, source: name, timeBase: timeBase)
    }
}
