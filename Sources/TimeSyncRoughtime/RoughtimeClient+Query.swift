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
    ///   - interval: The pause before each request after the first (default 250 ms; at most half of
    ///     what is left of the query's deadline).
    ///   - timeout: The deadline of each exchange, resolution included (default 5 s); the query's is
    ///     `samples` times it.
    /// - Returns: The exchanges, how many requests were lost, and their combination.
    /// - Throws: `RoughtimeError.timeout` when no reply verified, saying how many requests were lost
    ///   and naming the last reason a datagram was refused; `RoughtimeError.contradictorySignatures`
    ///   when the signed intervals share no time; `NTPClientError` for resolution and socket failures
    ///   (`.unreachable` when nothing listens on the port); `SampleError`; `CancellationError`.
    package func query(samples: Int = 1, interval: Duration = .milliseconds(250), timeout: Duration = .seconds(5)) async throws
        -> RoughtimeQueryResult
    {
        let wanted = max(1, samples)
        let deadline = timeBase.monotonicNow().advanced(by: timeout * wanted)
        var exchanges: [Exchange] = []
        var attempts = 0
        var lastLoss: RoughtimeError?
        while exchanges.count < wanted, attempts < 2 * wanted {
            let remaining = timeBase.monotonicNow().duration(to: deadline)
            guard remaining > .milliseconds(10) else { break }
            if attempts > 0 { try await timeBase.sleep(until: timeBase.monotonicNow().advanced(by: min(interval, remaining / 2))) }
            attempts += 1
            do {
                exchanges.append(try await exchange(timeout: min(timeout, timeBase.monotonicNow().duration(to: deadline))))
            } catch let error as RoughtimeError where error.code == .timeout {
                lastLoss = error
            }
        }
        guard !exchanges.isEmpty else {
            let lost = attempts - exchanges.count
            let last = lastLoss.map { $0.detail.isEmpty ? "" : " (last: \($0.detail))" } ?? ""
            throw RoughtimeError(.timeout, "no reply from \(name) verified: \(lost) of \(attempts) requests lost\(last)")
        }
        return try RoughtimeQueryResult(exchanges: exchanges, attempts: attempts, source: name, timeBase: timeBase)
    }
}
