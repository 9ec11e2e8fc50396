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
        let series = DatagramMeasurement<NTPClientExchange>.Series(samples: samples, interval: interval, exchangeTimeout: timeout)
        // Each exchange may take `timeout`, and so may the name's resolution.
        let deadline = Deadline.after(timeout * (series.samples + 1) + interval * (series.samples - 1), on: timeBase)
        var measurement = measurement(of: .server(server), series: series, conflictWindow: conflictWindow, deadline: deadline)
        let answers = try await measurement.run(on: timeBase, addressPolicy: addressPolicy)
        let source = NTPPoolSource.sourceName(server: server, address: answers[0].address)
        let replies = answers.map(\.answer)
        return try NTPQueryResult(
            server: server, address: answers[0].address, consensusOf: replies, samples: try replies.map { try $0.sample(source: source) },
            timeBase: timeBase)
    }

    /// Measures a server for a synchronizer: resolves the name, then exchanges `samples` requests with
    /// the first address that answers, like ``query(host:port:timeout:samples:interval:conflictWindow:)``,
    /// and returns every validated sample as it is. Nothing is combined: the clock's estimator takes
    /// the samples (and holds any that contradicts the source's others as a suspect).
    ///
    /// `deadline` is the whole measurement's: name resolution, every address tried and every exchange
    /// share it, and no request is sent once it has passed.
    /// - Parameters:
    ///   - target: The server's name and port, or its addresses.
    ///   - source: The source name the samples carry.
    ///   - deadline: The deadline of the whole measurement.
    ///   - samples: How many exchanges (at least 1; default 1).
    ///   - interval: The spacing of the exchanges (default 250 ms).
    ///   - conflictWindow: How long each exchange listens after its first reply for a conflicting one.
    /// - Returns: The samples, oldest first; at least one.
    /// - Throws: What ``query(host:port:timeout:samples:interval:conflictWindow:)`` throws, except
    ///   `SampleConsensusError`.
    func samples(
        of target: Target, source: String, deadline: Deadline, samples: Int = 1,
        interval: Duration = .milliseconds(250), conflictWindow: ConflictWindow = .synchronizer
    ) async throws -> [OffsetSample] {
        var measurement = measurement(
            of: target, series: .init(samples: samples, interval: interval), conflictWindow: conflictWindow, deadline: deadline)
        let results = try await measurement.run(on: timeBase, addressPolicy: addressPolicy).map { answered in
            Result { try answered.answer.sample(source: source) }
        }
        // A reply whose sample is out of limits is dropped; the others are used.
        let taken = results.compactMap { try? $0.get() }
        guard !taken.isEmpty else { _ = try results[0].get(); return [] }
        return taken
    }
}
