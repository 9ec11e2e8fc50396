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
    /// The exchanges follow an `ExchangeSeries`, as `NTPClient.query`'s do. An exchange that fails
    /// (no reply in time, only dropped datagrams, an NTS NAK) does not end the query: the next one is
    /// tried, and the query fails only when none succeeded. A `RATE` kiss asking for at most 16 s is
    /// waited out. A failed key exchange, a closed port, any other Kiss-o'-Death, a server that says
    /// it is unsynchronized and conflicting replies end it at once.
    /// - Parameters:
    ///   - samples: How many exchanges (at least 1; default 1).
    ///   - interval: The spacing of the exchanges, from one request to the next (default 250 ms).
    ///   - timeout: The deadline of each exchange, the key exchange it may make included (default 5 s).
    /// - Returns: The combined result, the NTP server that answered, the key exchange's duration and
    ///   the datagrams dropped.
    /// - Throws: At once: `NTSKEError` from a key exchange, `NTPClientError.unreachable`, an
    ///   `NTSReplyError` wrapping a Kiss-o'-Death, an unsynchronized or a conflicting reply,
    ///   `CancellationError`. When no exchange succeeded: the last failure (`NTPClientError` `.timeout`, `.network`, DNS;
    ///   `NTSReplyError`; `SampleError`). `SampleConsensusError` when the replies contradict each other.
    package func query(samples: Int = 1, interval: Duration = .milliseconds(250), timeout: Duration = .seconds(5)) async throws
        -> NTSQueryResult
    {
        let source = "nts://" + HostPort.format(host: keyExchange.host, port: keyExchange.port)
        let before = statistics
        var replies: [NTPReply] = []
        var collected: [OffsetSample] = []
        var server: IPEndpoint?
        var keyExchangeDuration: Duration?
        var series = ExchangeSeries(samples: samples, interval: interval, timeout: timeout, start: timeBase.monotonicNow())
        try await series.run(on: timeBase) { allowed in
            let exchange = try await self.exchange(timeout: allowed)
            keyExchangeDuration = keyExchangeDuration ?? exchange.keyExchange?.duration
            server = exchange.server
            collected.append(try exchange.reply.sample(source: source))
            replies.append(exchange.reply)
        }
        guard let server, !collected.isEmpty else { throw series.lastError ?? NTPClientError(.timeout, "no reply") }
        let measurement = try NTPQueryResult(
            server: NTPServerAddress(host: keyExchange.host, port: keyExchange.port), address: server, consensusOf: replies,
            samples: collected, timeBase: timeBase)
        return NTSQueryResult(
            measurement: measurement, ntpServer: server, keyExchangeDuration: keyExchangeDuration, dropped: statistics.dropped(since: before))
    }
}
#endif
