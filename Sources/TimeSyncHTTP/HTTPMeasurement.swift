import TimeSync
import TimeSyncWire

/// One measurement of HTTP servers' clocks, as a state machine with no I/O: URLSession and
/// AsyncHTTPClient each only execute its requests.
///
/// It owns every decision between "measure this server" and its samples, made once for both
/// transports:
/// - **Warm-up.** With `warmUp`, a first request opens the connection, read by the given
///   preference. A `TimeSync-Time` answer (unless the preference is `dateOnly`) is discarded, and
///   `samples` requests follow over the warm connection, read by `TimeSync-Time` only. Otherwise the
///   `Date` path follows, with the first response's `Date` as its first sample (a one-second header
///   loses nothing to the connection's opening). A transport failure of the warm-up ends the
///   measurement: the server cannot be reached.
/// - **`Date` refinement** (``DateRefinementPlan``): which source, and when, so each request
///   straddles the server's second boundary; among several sources, probes first.
/// - **Failures.** A server that asks to be asked less (`429`, `503`: ``PollOutcome/retryAfter(_:)``
///   or ``PollOutcome/slowDown(interval:)``) gets no further request: its refusal is the verdict. A
///   `Date` that contradicts the source's earlier ones ends it with
///   `HTTPTimeError.inconsistentSamples`. Any other rejected response or lost request counts, and
///   the measurement goes on.
/// - **The deadline.** Each request gets `requestTimeout` at most, and never past the measurement's
///   deadline; a request that could not finish by the deadline is not sent, and what was taken by
///   then is the answer.
package struct HTTPMeasurement: Sendable {
    /// What the transport does next.
    package enum Action: Sendable {
        /// Send a request to source `source` at `at` (sleep until then), read by `preference`, and
        /// give it until `deadline`; report it with ``received(_:hasTimeHeader:)``,
        /// ``rejected(_:hasTimeHeader:)`` or ``failed(_:)``.
        case send(source: Int, at: MonotonicInstant, preference: HTTPTimeScheme.Preference, deadline: Deadline)
        /// The measurement is over.
        case done(Result)
        /// The measurement is over without a sample, for this reason.
        case failed(any Error)
    }

    /// What a measurement took.
    package struct Result: Sendable {
        /// The source the samples came from.
        package var source: Int
        /// The scheme they were read by.
        package var scheme: HTTPTimeScheme.Kind
        /// The samples, oldest first; at least one.
        package var samples: [OffsetSample]
        /// Requests sent, the warm-up included.
        package var requests: Int
        /// Requests that failed or whose response was rejected.
        package var rejected: Int
    }

    /// The settings of a measurement.
    package struct Configuration: Sendable {
        /// The sources' names, for messages; one per source.
        package var sources: [String]
        /// Samples wanted from `TimeSync-Time`; also the `Date` budget (requests), plus one when the
        /// warm-up's response had no usable `Date`.
        package var samples: Int
        /// Which header a response may be read by.
        package var preference: HTTPTimeScheme.Preference
        /// Whether a first request opens the connection (one source only).
        package var warmUp: Bool
        /// The `Date` path's request budget when it differs from the default (see `samples`).
        package var dateRequests: Int?
        /// The longest one request may take.
        package var requestTimeout: Duration
        /// `Date`: stop once the bounds are this much above twice the round trip.
        package var targetWidth: Duration = .milliseconds(1)
        /// `Date`: the least time between planning a request and sending it.
        package var lead: Duration = .milliseconds(2)
        /// The local monotonic clock's worst-case frequency error.
        package var maxDrift: Double = 100e-6

        /// Settings for `sources`.
        package init(
            sources: [String], samples: Int, preference: HTTPTimeScheme.Preference, warmUp: Bool, dateRequests: Int? = nil,
            requestTimeout: Duration
        ) {
            self.sources = sources
            self.samples = max(1, samples)
            self.preference = preference
            self.warmUp = warmUp
            self.dateRequests = dateRequests
            self.requestTimeout = requestTimeout
        }
    }

    private enum Phase {
        case warmUp
        case timeHeader
        case date(DateRefinementPlan)
        case over(Action)
    }

    /// The settings.
    package let configuration: Configuration
    /// The measurement's deadline, when it has one.
    package let deadline: Deadline?
    /// Requests sent.
    package private(set) var requests = 0
    /// Requests that failed or whose response was rejected.
    package private(set) var rejectedCount = 0
    private var phase: Phase
    private var accepted: [OffsetSample] = []
    private var awaiting: Int?
    private var lastError: any Error = HTTPTimeError.noUsableSamples

    /// A measurement, all of it by `deadline` when given.
    /// - Throws: `HTTPTimeError.invalidArgument` without sources, with a warm-up over several, or a
    ///   budget too small for the `Date` probes.
    package init(_ configuration: Configuration, deadline: Deadline? = nil) throws(HTTPTimeError) {
        guard !configuration.sources.isEmpty else { throw HTTPTimeError.invalidArgument.withDetail("no source to measure") }
        guard !configuration.warmUp || configuration.sources.count == 1 else {
            throw HTTPTimeError.invalidArgument.withDetail("a warm-up is for one source")
        }
        self.configuration = configuration
        self.deadline = deadline
        phase = .warmUp
        if !configuration.warmUp {
            phase = configuration.preference == .dateOnly ? .date(try Self.plan(configuration, seed: nil, used: 0)) : .timeHeader
        }
    }

    /// What to do at `now`. Without a warm-up, a preference other than `dateOnly` reads every
    /// response by `TimeSync-Time` only.
    package mutating func next(at now: MonotonicInstant) -> Action {
        if awaiting != nil { failed(HTTPTimeError.timeout.withDetail("the request's outcome was never reported")) }
        switch phase {
        case .over(let action):
            return action
        case .warmUp:
            return send(0, at: now, preference: configuration.preference, now: now) ?? end()
        case .timeHeader:
            let warm = configuration.warmUp ? 1 : 0
            guard requests - warm < configuration.samples else { return end() }
            return send(0, at: now, preference: .timeHeaderOnly, now: now) ?? end()
        case .date(var plan):
            let action = plan.nextAction(at: now)
            phase = .date(plan)
            switch action {
            case .finish:
                return end()
            case .send(let source, let instant):
                // A request with no time left to finish is not sent: what was taken is the answer.
                return send(source, at: max(instant, now), preference: .dateOnly, now: now) ?? end()
            }
        }
    }

    /// The response to the request out was read: its sample, and whether it carried `TimeSync-Time`.
    package mutating func received(_ sample: OffsetSample, hasTimeHeader: Bool) {
        guard let source = awaiting else { return }
        awaiting = nil
        switch phase {
        case .over:
            return
        case .warmUp:
            choosePath(seed: sample, hasTimeHeader: hasTimeHeader)
        case .timeHeader:
            accepted.append(sample)
        case .date(var plan):
            do {
                try plan.handle(sample, from: source)
                phase = .date(plan)
            } catch {
                phase = .over(.failed(HTTPTimeError.inconsistentSamples.withDetail("\(configuration.sources[source]): \(error)")))
            }
        }
    }

    /// The response to the request out was rejected: the server asked to back off, or the response
    /// had no usable time.
    package mutating func rejected(_ error: any Error, hasTimeHeader: Bool) {
        guard awaiting != nil else { return }
        if Self.asksToBackOff(error) {
            awaiting = nil
            phase = .over(.failed(error))
            return
        }
        if case .warmUp = phase {
            // The warm-up's response only chooses the path: its rejection is not counted.
            awaiting = nil
            lastError = error
            choosePath(seed: nil, hasTimeHeader: hasTimeHeader)
            return
        }
        failed(error)
    }

    /// The request out failed in transport (connection, timeout, TLS): the warm-up's failure ends the
    /// measurement; a later one counts and the measurement goes on.
    package mutating func failed(_ error: any Error) {
        guard let source = awaiting else { return }
        awaiting = nil
        switch phase {
        case .over:
            return
        case .warmUp:
            phase = .over(.failed(error))
        case .timeHeader:
            rejectedCount += 1
            lastError = error
        case .date(var plan):
            plan.handleFailure(from: source)
            phase = .date(plan)
            lastError = error
        }
    }

    /// Whether a refusal asks the client to back off: no further request goes to that server.
    private static func asksToBackOff(_ error: any Error) -> Bool {
        switch PollOutcome(failure: error) {
        case .retryAfter, .slowDown, .stop: true
        default: false
        }
    }

    /// After the warm-up: `TimeSync-Time` requests, or the `Date` refinement seeded with the warm-up's
    /// `Date` sample.
    private mutating func choosePath(seed: OffsetSample?, hasTimeHeader: Bool) {
        let preference = configuration.preference
        if preference == .dateOnly || (!hasTimeHeader && preference == .preferTimeHeader) {
            do {
                phase = .date(try Self.plan(configuration, seed: seed, used: requests))
            } catch {
                phase = .over(.failed(error))
            }
        } else {
            phase = .timeHeader
        }
    }

    private static func plan(_ configuration: Configuration, seed: OffsetSample?, used: Int) throws(HTTPTimeError) -> DateRefinementPlan {
        let budget = configuration.dateRequests ?? (configuration.warmUp && seed == nil ? configuration.samples + 1 : configuration.samples)
        do {
            return try DateRefinementPlan(
                sourceCount: configuration.sources.count, maxRequests: budget, targetWidth: configuration.targetWidth,
                lead: configuration.lead, maxDrift: configuration.maxDrift, requestsUsed: used, seed: seed.map { (0, $0) })
        } catch {
            throw HTTPTimeError.invalidArgument.withDetail(error.description)
        }
    }

    /// A request to `source` at `instant`, or `nil` when it could not finish by the deadline.
    private mutating func send(
        _ source: Int, at instant: MonotonicInstant, preference: HTTPTimeScheme.Preference, now: MonotonicInstant
    ) -> Action? {
        let own = Deadline(after: configuration.requestTimeout, from: instant)
        let requestDeadline = deadline.map { min($0, own) } ?? own
        // A request that could not finish before the deadline is not sent.
        guard requestDeadline.remaining(at: instant) > .milliseconds(1) else { return nil }
        requests += 1
        awaiting = source
        return .send(source: source, at: instant, preference: preference, deadline: requestDeadline)
    }

    private mutating func end() -> Action {
        let action: Action
        switch phase {
        case .over(let over):
            return over
        case .date(let plan):
            if let chosen = plan.chosenSource, !plan.samples.isEmpty {
                action = .done(Result(source: chosen, scheme: .date, samples: plan.samples, requests: requests, rejected: plan.rejected))
            } else {
                action = .failed(lastError)
            }
        case .timeHeader:
            action = accepted.isEmpty
                ? .failed(lastError) : .done(Result(source: 0, scheme: .timeHeader, samples: accepted, requests: requests, rejected: rejectedCount))
        case .warmUp:
            action = .failed(lastError)
        }
        phase = .over(action)
        return action
    }
}

extension HTTPMeasurement {
    /// How a response to a request the measurement asked for came back.
    package enum Response: Sendable {
        /// Read: its sample, and whether it carried `TimeSync-Time`.
        case sample(OffsetSample, hasTimeHeader: Bool)
        /// Refused (the server asked to back off, or the response had no usable time).
        case rejected(any Error, hasTimeHeader: Bool)
    }

    /// Executes the measurement: the one loop both HTTP transports run. Each request goes out when
    /// and as the measurement says, through `request`, and its outcome is reported; a transport
    /// failure is `request` throwing.
    /// - Parameters:
    ///   - timeBase: The clocks the measurement's instants are on (it sleeps on them).
    ///   - request: Makes one request to the source at the index given, read by the preference
    ///     given, ending by the deadline given.
    /// - Returns: What the measurement took.
    /// - Throws: The measurement's verdict, `CancellationError`.
    package mutating func run(
        on timeBase: any TimeBase,
        request: (_ source: Int, _ preference: HTTPTimeScheme.Preference, _ deadline: Deadline) async throws -> Response
    ) async throws -> Result {
        while true {
            switch next(at: timeBase.monotonicNow()) {
            case .done(let result):
                return result
            case .failed(let error):
                throw error
            case .send(let source, let instant, let preference, let deadline):
                if instant > timeBase.monotonicNow() { try await timeBase.sleep(until: instant) }
                do {
                    switch try await request(source, preference, deadline) {
                    case .sample(let sample, let hasTimeHeader): received(sample, hasTimeHeader: hasTimeHeader)
                    case .rejected(let error, let hasTimeHeader): rejected(error, hasTimeHeader: hasTimeHeader)
                    }
                } catch is CancellationError {
                    throw CancellationError()
                } catch {
                    if Task.isCancelled { throw CancellationError() }
                    failed(error)
                }
            }
        }
    }
}
