import TimeSync
import TimeSyncWire
import TimeSyncSockets

@available(watchOS, unavailable)
extension NTPClient {
    /// Queries a server like `sntp`: resolves the name, then exchanges `samples` requests with the
    /// first address that answers, `interval` apart, and combines them with `SampleConsensus`: the
    /// largest set of samples that agree, when it is a strict majority, so one lying reply can
    /// neither win nor spoil the answer.
    /// - Parameters:
    ///   - host: Host name or IP literal.
    ///   - port: UDP port (default 123).
    ///   - timeout: The deadline of each exchange (default 5 s).
    ///   - samples: How many exchanges (at least 1; default 1).
    ///   - interval: The spacing of the exchanges (default 250 ms).
    ///   - conflictWindow: How long each exchange listens after its first reply for a conflicting one
    ///     (default: max(round trip, 20 ms)).
    /// - Returns: The combined result.
    /// - Throws: `NTPClientError` (`.unreachable` at once, `.timeout` saying how many requests went
    ///   unanswered in how long), `NTPReplyError` (the last rejection when no sample succeeded; a
    ///   Kiss-o'-Death at once, except `RATE` asking for at most 16 s, which the query waits out before
    ///   going on; `.conflictingReplies` at once: someone raced the server; `.unsynchronized` when no
    ///   address had a synchronized clock), `SampleConsensusError` when the replies contradict each
    ///   other; `CancellationError`.
    package func query(
        host: String, port: Int = NTPServerAddress.defaultPort, timeout: Duration = .seconds(5), samples: Int = 1,
        interval: Duration = .milliseconds(250), conflictWindow: ConflictWindow = .query
    ) async throws -> NTPQueryResult {
        let server = NTPServerAddress(host: host, port: port)
        return try await firstAnswering(server, timeout: timeout) { address in
            let exchanges = try await collect(
                server: server, address: address, source: NTPPoolSource.sourceName(server: server, address: address),
                timeout: timeout, samples: max(1, samples), interval: interval, conflictWindow: conflictWindow)
            return try NTPQueryResult(
                server: server, address: address, consensusOf: exchanges.replies, samples: exchanges.samples, timeBase: timeBase)
        }
    }

    /// Measures a server for a synchronizer: resolves the name, then exchanges `samples` requests with
    /// the first address that answers, like ``query(host:port:timeout:samples:interval:conflictWindow:)``,
    /// and returns every validated sample as it is. Nothing is combined: the clock's estimator takes
    /// the samples (and holds any that contradicts the source's others as a suspect).
    ///
    /// `timeout` is the whole measurement's: name resolution, every address tried and every exchange
    /// share it, and no request is sent once it has passed.
    /// - Parameters:
    ///   - server: The server's name or address and port.
    ///   - source: The source name the samples carry.
    ///   - timeout: The deadline of the whole measurement.
    ///   - samples: How many exchanges (at least 1; default 1).
    ///   - interval: The spacing of the exchanges (default 250 ms).
    ///   - conflictWindow: How long each exchange listens after its first reply for a conflicting one.
    /// - Returns: The samples, oldest first; at least one.
    /// - Throws: What ``query(host:port:timeout:samples:interval:conflictWindow:)`` throws, except
    ///   `SampleConsensusError`.
    func samples(
        of server: NTPServerAddress, source: String, timeout: Duration, samples: Int = 1,
        interval: Duration = .milliseconds(250), conflictWindow: ConflictWindow = .synchronizer
    ) async throws -> [OffsetSample] {
        let deadline = timeBase.monotonicNow().advanced(by: timeout)
        return try await firstAnswering(server, timeout: timeout, deadline: deadline) { address in
            try await collect(
                server: server, address: address, source: source, timeout: timeout, samples: max(1, samples),
                interval: interval, conflictWindow: conflictWindow, deadline: deadline
            ).samples
        }
    }

    /// Resolves the server's name (within `timeout`) and returns what `body` makes of the first
    /// address that answers; IPv4 and IPv6 addresses alternate. With a `deadline`, resolution gets
    /// only what is left of it, and no address is tried once it has passed.
    func firstAnswering<Result>(
        _ server: NTPServerAddress, timeout: Duration, deadline: MonotonicInstant? = nil, _ body: (IPEndpoint) async throws -> Result
    ) async throws -> Result {
        let resolution = deadline.map { min(timeout, timeBase.monotonicNow().duration(to: $0)) } ?? timeout
        let addresses = try await NTPResolver.resolve(host: server.host, port: server.port, policy: addressPolicy, timeout: resolution, timeBase: timeBase)
        var lastError: any Error = NTPClientError(.noAddresses, server.host)
        for address in addresses {
            if let deadline, timeBase.monotonicNow() >= deadline { break }
            do {
                return try await body(address)
            } catch let error as NTPReplyError where error.endsMeasurement {
                throw error  // the server said no, or someone raced it: do not try its other addresses
            } catch let error as SampleConsensusError {
                throw error  // the server answered, inconsistently: that is the finding
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                lastError = error
            }
        }
        throw lastError
    }

    /// Exchanges `samples` requests with one address, `interval` apart, as an `ExchangeSeries`
    /// decides (a `RATE` kiss widening the spacing; a refusal ending it), and returns the replies
    /// and their samples. With a `deadline` (the whole measurement's), each exchange gets at most
    /// what is left of it, and no request is sent once it has passed.
    func collect(
        server: NTPServerAddress, address: IPEndpoint, source: String, timeout: Duration, samples: Int,
        interval: Duration, conflictWindow: ConflictWindow, deadline: MonotonicInstant? = nil
    ) async throws -> (replies: [NTPReply], samples: [OffsetSample]) {
        var series = ExchangeSeries(
            samples: samples, interval: interval, timeout: timeout, start: timeBase.monotonicNow(), deadline: deadline)
        var replies: [NTPReply] = []
        var collected: [OffsetSample] = []
        try await series.run(on: timeBase) { allowed in
            do {
                let reply = try await exchange(with: address, timeout: allowed, conflictWindow: conflictWindow)
                collected.append(try reply.sample(source: source))
                replies.append(reply)
            } catch let error as NTPClientError where error.code == .unreachable {
                throw NTPClientError(.unreachable, "\(address): port unreachable")
            }
        }
        guard !collected.isEmpty else {
            if series.timedOut == series.failed, series.timedOut > 0 {
                let waited = series.start.duration(to: timeBase.monotonicNow())
                let count = series.timedOut
                throw NTPClientError(.timeout, "from \(address): \(count) request\(count == 1 ? "" : "s") unanswered in \(waited.readable)")
            }
            throw series.lastError ?? NTPClientError(.timeout, "\(address): the measurement's deadline passed before a request could be sent")
        }
        return (replies, collected)
    }
}
