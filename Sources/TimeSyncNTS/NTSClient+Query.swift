#if NTS
import TimeSync
import TimeSyncWire
import TimeSyncNTP
import TimeSyncSockets

@available(watchOS, unavailable, message: "watchOS apps cannot use BSD sockets (Apple TN3135): use TimeSynchronizer.https() or TimeSource.https(_:)")
extension NTSClient {
    /// Queries the server like `sntp`, authenticated: `samples` NTS exchanges, `interval` apart (the
    /// first one makes a key exchange when the client holds no usable keys), combined like
    /// `NTPClient.query`'s with `SampleConsensus`: the largest set of samples that agree, when it is a
    /// strict majority, so one bad reply can neither win nor spoil the answer.
    ///
    /// The exchanges are one measurement (`DatagramMeasurement`), as `NTPClient.query`'s are, under
    /// one deadline of `samples` × `timeout` plus the spacing. An exchange that fails (no reply in
    /// time, only dropped datagrams) does not end the query: the next one is tried, and the query
    /// fails only when none succeeded. A `RATE` kiss asking for at most 16 s is waited out. A failed
    /// key exchange, a closed port, any other Kiss-o'-Death, a server that says it is unsynchronized,
    /// conflicting replies and an NTS NAK (the next query makes a new key exchange) end it: with the
    /// answers taken so far, if any.
    /// - Parameters:
    ///   - samples: How many exchanges (at least 1; default 1).
    ///   - interval: The spacing of the exchanges, from one request to the next (default 250 ms).
    ///   - timeout: What each exchange may take, the key exchange included (default 5 s).
    /// - Returns: The combined result, the NTP server that answered, the key exchange's duration and
    ///   the datagrams dropped.
    /// - Throws: `NTSKEError` from a key exchange, `NTPClientError` (`.unreachable`, `.timeout`,
    ///   `.network`, DNS), `NTSReplyError` (a Kiss-o'-Death, an unsynchronized or a conflicting reply,
    ///   a NAK, or the last datagram dropped), `SampleError`, `SampleConsensusError` when the replies
    ///   contradict each other, `CancellationError`.
    package func query(samples: Int = 1, interval: Duration = .milliseconds(250), timeout: Duration = .seconds(5)) async throws
        -> NTSQueryResult
    {
        let source = "nts://" + HostPort.format(host: keyExchange.host, port: keyExchange.port)
        let before = statistics
        let series = DatagramMeasurement<NTSClientExchange>.Series(samples: samples, interval: interval, exchangeTimeout: timeout)
        let deadline = Deadline.after(timeout * series.samples + interval * (series.samples - 1), on: timeBase)
        let exchanges = try await self.exchanges(until: deadline, series: series)
        let replies = exchanges.map(\.reply)
        let measurement = try NTPQueryResult(
            server: NTPServerAddress(host: keyExchange.host, port: keyExchange.port), address: exchanges[0].server, consensusOf: replies,
            samples: try replies.map { try $0.sample(source: source) }, timeBase: timeBase)
        return NTSQueryResult(
            measurement: measurement, ntpServer: exchanges[0].server, keyExchangeDuration: exchanges[0].keyExchange?.duration,
            dropped: statistics.dropped(since: before))
    }
}
#endif
