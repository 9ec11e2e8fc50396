import TimeSync

/// Several exchanges with one address, as a state machine with no I/O: `samples` usable replies,
/// requests `interval` apart, within one deadline (``DatagramMeasurement`` runs one per address). It decides when the next request goes out and how long its exchange
/// may take, the waits a `RATE` kiss asks for, and which failures end the series; the transport runs
/// each exchange (a ``DatagramExchange``) and reports how it ended.
///
/// - A usable reply and a plain failure (no reply in time, a rejected datagram) each count toward
///   `maxRequests` (by default `samples`: a lost request is not made up for); the series ends with
///   `samples` replies or `maxRequests` requests.
/// - A `RATE` kiss asking for at most ``maximumRateWait`` does not count: the next request waits
///   that long, and the spacing widens to it (with a tenth's margin) for the rest of the series.
/// - Any other refusal ends the series at once, as its answer: a kiss (`DENY`, `RSTR`, a longer
///   `RATE`, or one whose wait would pass the deadline: the poll schedule then honours it), an
///   unsynchronized server, replies raced by someone on the path. Asking again would only repeat it.
/// - No request goes out once the deadline has passed, and each exchange gets at most what is left.
package struct ExchangeSeries: Sendable {
    /// What the transport does next.
    package enum Step: Sendable, Hashable {
        /// Send the next request now; its exchange may take up to `timeout`.
        case send(timeout: Duration)
        /// Nothing until then.
        case wait(until: MonotonicInstant)
        /// The series is over: every request was made, or the deadline passed.
        case finished
    }

    /// The longest a series waits to honour a `RATE` kiss: 16 s. A server asking for more ends it.
    package static let maximumRateWait: Duration = .seconds(16)

    /// Usable replies wanted.
    package let samples: Int
    /// Requests that count, answered or not (at least `samples`): a failed one is made up for
    /// while fewer than this many have been made.
    package let maxRequests: Int
    /// The longest one exchange may take.
    package let timeout: Duration
    /// When the series began.
    package let start: MonotonicInstant
    /// The whole series' deadline, when it has one.
    package let deadline: MonotonicInstant?
    /// The spacing of the requests, widened by a `RATE` kiss.
    package private(set) var interval: Duration
    /// Exchanges that brought a usable reply.
    package private(set) var answered = 0
    /// Exchanges that failed and counted.
    package private(set) var failed = 0
    /// Of those, the ones that ended without a reply in time.
    package private(set) var timedOut = 0
    /// The last failure that counted.
    package private(set) var lastError: (any Error)?
    private var kisses = 0
    private var nextSend: MonotonicInstant

    /// A series starting at `start`.
    /// - Parameters:
    ///   - samples: Usable replies wanted (at least 1).
    ///   - maxRequests: Requests that count in all, answered or not (default and at least `samples`).
    ///   - interval: Their spacing, from one request to the next.
    ///   - timeout: The longest one exchange may take.
    ///   - start: When the first request may go out.
    ///   - deadline: The whole series' deadline, if any.
    package init(
        samples: Int, maxRequests: Int? = nil, interval: Duration, timeout: Duration, start: MonotonicInstant, deadline: MonotonicInstant? = nil
    ) {
        self.samples = max(1, samples)
        self.maxRequests = max(self.samples, maxRequests ?? self.samples)
        self.interval = max(.zero, interval)
        self.timeout = timeout
        self.start = start
        self.deadline = deadline
        nextSend = start
    }

    /// What to do at `now`. After ``Step/send(timeout:)`` the transport reports the exchange with
    /// ``answer()`` or ``fail(_:timedOut:at:)`` before asking again.
    package mutating func next(at now: MonotonicInstant) -> Step {
        guard answered < samples, answered + failed < maxRequests else { return .finished }
        if let deadline, nextSend >= deadline || now >= deadline { return .finished }
        guard now >= nextSend else { return .wait(until: nextSend) }
        nextSend = now.advanced(by: interval)
        let allowed = deadline.map { min(timeout, now.duration(to: $0)) } ?? timeout
        return .send(timeout: allowed)
    }

    /// The exchange brought a usable reply.
    package mutating func answer() {
        answered += 1
    }

    /// The exchange failed at `now` with `error` (`timedOut` when no reply came in time).
    /// - Returns: Whether the series goes on; when it does not, the error is the series' answer.
    package mutating func fail(_ error: any Error, timedOut: Bool = false, at now: MonotonicInstant) -> Bool {
        switch PollOutcome(failure: error) {
        case .slowDown(let asked):
            // The kiss is the series' answer (for the poll schedule to honour) when its wait is long,
            // or would leave no time for another request before the deadline.
            guard let wait = asked, wait <= Self.maximumRateWait, kisses < maxRequests else { return false }
            if let deadline, now.advanced(by: wait) >= deadline { return false }
            kisses += 1
            interval = max(interval, wait + wait / 10)  // a margin over the limit, not on its edge
            nextSend = max(nextSend, now.advanced(by: wait))
            return true
        case .stop, .unsynchronized, .conflicting:
            return false
        case .sample, .failure, .retryAfter:
            failed += 1
            if timedOut { self.timedOut += 1 }
            lastError = error
            return true
        }
    }
}
