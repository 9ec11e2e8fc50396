#if NTS
import TimeSync
import TimeSyncNTP
import TimeSyncSockets

@available(watchOS, unavailable, message: "watchOS apps cannot use BSD sockets (Apple TN3135): use TimeSynchronizer.https() or URLSessionDateSource")
extension NTSClient {
    /// Queries the server like `sntp`, authenticated: `samples` NTS exchanges, `interval` apart (the
    /// first one makes a key exchange when the client holds no usable keys), combined like
    /// `NTPClient.query`'s with `SampleConsensus`: the largest set of samples that agree, when it is a
    /// strict majority, so one bad reply can neither win nor spoil the answer.
    ///
    /// An exchange that fails (no reply in time, only dropped datagrams, an NTS NAK) does not end the
    /// query: the next one is tried, and the query fails only when none succeeded. A failed key
    /// exchange, a closed port, a Kiss-o'-Death and a server that says it is unsynchronized end it at
    /// once.
    /// - Parameters:
    ///   - samples: How many exchanges (at least 1; default 1).
    ///   - interval: The spacing of the exchanges, from one request to the next (default 250 ms).
    ///   - timeout: The deadline of each exchange, the key exchange it may make included (default 5 s).
    /// - Returns: The combined result, the NTP server that answered, the key exchange's duration and
    ///   the datagrams dropped.
    /// - Throws: At once: `NTSKEError` from a key exchange, `NTPClientError.unreachable`, an
    ///   `NTSReplyError` wrapping a Kiss-o'-Death or an unsynchronized reply, `CancellationError`. When no
    ///   exchange succeeded: the last failure (`NTPClientError` `.timeout`, `.network`, DNS;
    ///   `NTSReplyError`; `SampleError`). `SampleConsensusError` when the replies contradict each other.
    public func query(samples: Int = 1, interval: Duration = .milliseconds(250), timeout: Duration = .seconds(5)) async throws
        -> NTSQueryResult
    {
        let source = "nts://" + HostPort.format(host: keyExchange.host, port: keyExchange.port)
        let before = statistics
        var replies: [NTPReply] = []
        var collected: [OffsetSample] = []
        var server: IPEndpoint?
        var keyExchangeDuration: Duration?
        var lastError: (any Error)?
        var nextSend = timeBase.monotonicNow()
        for index in 0..<max(1, samples) {
            if index > 0 { try await timeBase.sleep(until: nextSend) }
            nextSend = timeBase.monotonicNow().advanced(by: interval)
            do {
                let exchange = try await self.exchange(timeout: timeout)
                keyExchangeDuration = keyExchangeDuration ?? exchange.keyExchange?.duration
                server = exchange.server
                collected.append(try exchange.reply.sample(source: source))
                replies.append(exchange.reply)
            } catch let error as NTSKEError {
                throw error  // no keys: nothing more to try
            } catch let error as NTPClientError where error.code == .unreachable {
                throw error
            } catch let error as NTSReplyError where error.code == .ntp(.kissOfDeath) || error.code == .ntp(.unsynchronized) {
                throw error
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                lastError = error
            }
        }
        guard let server, !collected.isEmpty else { throw lastError ?? NTPClientError(.timeout, "no reply") }
        let measurement = try NTPQueryResult(
            server: NTPServerAddress(host: keyExchange.host, port: keyExchange.port), address: server, consensusOf: replies,
            samples: collected, timeBase: timeBase)
        return NTSQueryResult(
            measurement: measurement, ntpServer: server, keyExchangeDuration: keyExchangeDuration, dropped: statistics.dropped(since: before))
    }
}
#endif
