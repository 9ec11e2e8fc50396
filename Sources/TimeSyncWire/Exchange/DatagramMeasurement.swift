import TimeSync

/// One measurement of one server over UDP, as a state machine with no I/O: NTP, NTS and Roughtime
/// each run it with their own ``DatagramExchange``, and one driver per transport only executes its
/// actions.
///
/// It owns every decision between "measure this server" and its verdict, made once for every
/// protocol:
/// - **The deadline.** One ``Deadline``, made when the measurement is, bounds name resolution, every
///   address tried, every request and every wait; nothing is sent once it has passed.
/// - **Addresses.** The name is resolved (``Action/resolve(host:port:deadline:)``), or the addresses
///   are given; they are tried in order until one answers. A closed port, a series that brought no
///   usable reply, or a server that says its clock is unsynchronized moves on to the next address; a
///   refusal that speaks for the server (a Kiss-o'-Death, replies raced by someone on the path) ends
///   the measurement, since its other addresses would say the same.
/// - **The series on one address** (``ExchangeSeries``): `samples` requests `interval` apart, a lost
///   request resent up to `maxRequests` in all, a short `RATE` kiss waited out, a longer one returned
///   for the poll schedule to honour.
/// - **Each exchange** (the protocol's ``DatagramExchange``): which datagram is the reply, how long to
///   listen on for a conflicting one. The next exchange is the last one's ``DatagramExchange/successor()``,
///   which carries what the protocol keeps across requests (NTS's cookies).
/// - **The verdict**: the first answering address's answers, or the error that says best why there
///   are none (every request unanswered in so long, or the last refusal).
///
/// The driver loops: ``next(at:)``; on ``Action/open(_:)`` open a socket to the address, then take
/// the datagram from ``opened(at:wallTime:)`` (so the request is stamped as it leaves), send it and
/// report each datagram read with ``received(_:at:)`` until it says the exchange ended, or the
/// listening ends with ``listenEnded(at:unseen:)``; a socket error goes to ``unreachable(_:at:)`` or
/// ``transportFailed(_:at:)``. Every instant comes from the caller, so tests drive a measurement
/// through failovers and kisses with hand-given instants.
package struct DatagramMeasurement<Exchange: DatagramExchange>: Sendable {
    /// What the driver does next.
    package enum Action: Sendable {
        /// Resolve `host` within `deadline` and report ``resolved(_:)`` or ``resolutionFailed(_:)``.
        case resolve(host: String, port: Int, deadline: Deadline)
        /// Open a socket connected to this address, then call ``opened(at:wallTime:)``.
        case open(IPEndpoint)
        /// Nothing until then; then ``next(at:)``.
        case wait(until: MonotonicInstant)
        /// The measurement is over: the first answering address's answers, oldest first.
        case done([Answered])
        /// The measurement is over without an answer, for this reason.
        case failed(any Error)
    }

    /// What the driver does with the socket after a datagram.
    package enum Listening: Sendable, Hashable {
        /// Keep reading; close the socket at `until` when given (an earlier close stands).
        case listen(until: MonotonicInstant?)
        /// The exchange is over: close the socket and ask ``next(at:)``.
        case ended
    }

    /// One answered exchange.
    package struct Answered: Sendable {
        /// The protocol's answer.
        package var answer: Exchange.Answer
        /// The address that gave it.
        package var address: IPEndpoint
        /// The exchange, as it ended (what it dropped on the way, the keys it kept).
        package var exchange: Exchange
    }

    /// How many answers to collect from one address, and how hard to try.
    package struct Series: Sendable, Hashable {
        /// Answers wanted.
        package var samples: Int
        /// Requests in all on one address, answered or not (at least `samples`).
        package var maxRequests: Int
        /// From one request to the next.
        package var interval: Duration
        /// The longest one exchange listens for its reply, when shorter than what is left of the
        /// deadline.
        package var exchangeTimeout: Duration?

        /// `samples` answers, `interval` apart, with `maxRequests` requests at most (default: one per
        /// answer wanted: a lost request counts), each listening `exchangeTimeout` at most (default:
        /// what is left of the deadline).
        package init(samples: Int = 1, maxRequests: Int? = nil, interval: Duration = .milliseconds(250), exchangeTimeout: Duration? = nil) {
            self.samples = max(1, samples)
            self.maxRequests = max(self.samples, maxRequests ?? self.samples)
            self.interval = max(.zero, interval)
            self.exchangeTimeout = exchangeTimeout.map { max(.zero, $0) }
        }
    }

    /// The deadline of the whole measurement.
    package let deadline: Deadline
    /// What one address is asked.
    package let series: Series
    /// Exchanges that ended, in order, answered or not.
    package private(set) var exchanges: [Exchange] = []
    /// Requests sent, on every address.
    package private(set) var requests = 0

    private let host: String
    private let port: Int
    private let timedOut: @Sendable (String) -> any Error
    private var template: Exchange
    private var usedTemplate = false
    private var addresses: [IPEndpoint]?
    private var addressIndex = 0
    private var current: ExchangeSeries?
    private var exchange: Exchange?
    private var allowed: Duration = .zero
    private var sentAt: MonotonicInstant?
    private var address: IPEndpoint?
    private var lastSilence: String?
    private var answers: [Answered] = []
    private var lastError: (any Error)?
    private var verdict: Action?

    /// A measurement of `host:port`, whose name is resolved first (an IP literal resolves to itself).
    /// - Parameters:
    ///   - host: The server's name or address.
    ///   - port: Its UDP port.
    ///   - first: The first exchange, not yet started; each later one is its predecessor's successor.
    ///   - series: What to ask of one address.
    ///   - deadline: The whole measurement's deadline.
    ///   - timedOut: The protocol's error for requests nobody answered, given what happened in words.
    package init(
        host: String, port: Int, first: Exchange, series: Series, deadline: Deadline,
        timedOut: @escaping @Sendable (String) -> any Error
    ) {
        self.host = host
        self.port = port
        template = first
        self.series = series
        self.deadline = deadline
        self.timedOut = timedOut
    }

    /// A measurement of a server at known addresses, tried in order.
    package init(
        addresses: [IPEndpoint], first: Exchange, series: Series, deadline: Deadline, timedOut: @escaping @Sendable (String) -> any Error
    ) {
        self.init(
            host: addresses.first.map { "\($0.address)" } ?? "", port: addresses.first.map { Int($0.port) } ?? 0, first: first,
            series: series, deadline: deadline, timedOut: timedOut)
        self.addresses = addresses
        if addresses.isEmpty { verdict = .failed(timedOut("no address to ask")) }
    }

    /// What to do at `now`.
    package mutating func next(at now: MonotonicInstant) -> Action {
        if let verdict { return verdict }
        if exchange != nil {
            // Asked again while an exchange was out: the driver lost it.
            listenEnded(at: now, unseen: nil)
            if let verdict { return verdict }
        }
        guard let addresses else { return .resolve(host: host, port: port, deadline: deadline) }
        while addressIndex < addresses.count {
            let address = addresses[addressIndex]
            if current == nil, deadline.hasPassed(at: now) { break }
            var on = current ?? ExchangeSeries(
                samples: series.samples, maxRequests: series.maxRequests, interval: series.interval,
                timeout: series.exchangeTimeout ?? deadline.remaining(at: now), start: now, deadline: deadline.instant)
            let step = on.next(at: now)
            current = on
            switch step {
            case .wait(let until):
                return .wait(until: until)
            case .send(let timeout):
                do {
                    exchange = usedTemplate ? try template.successor() : template
                } catch {
                    return end(with: error)
                }
                usedTemplate = true
                allowed = timeout
                self.address = address
                return .open(address)
            case .finished:
                if !answers.isEmpty { return end(with: nil) }
                lastError = silence(of: on, at: address, now: now)
                current = nil
                addressIndex += 1
            }
        }
        return end(with: lastError ?? timedOut("from \(host): the measurement's deadline passed before a request could be sent"))
    }

    /// The socket is open: the datagram to send now, stamped with `now` and `wallTime`, and the
    /// instant to stop listening at.
    package mutating func opened(at now: MonotonicInstant, wallTime: UnixTime) -> (datagram: [UInt8], listenUntil: MonotonicInstant) {
        guard var exchange else { return ([], now) }
        let (datagram, own) = exchange.start(at: now, wallTime: wallTime)
        self.exchange = exchange
        sentAt = now
        requests += 1
        return (datagram, min(own, now.advanced(by: allowed), deadline.instant))
    }

    /// A datagram read at `now`.
    package mutating func received(_ datagram: [UInt8], at now: MonotonicInstant) -> Listening {
        guard var exchange else { return .ended }
        let step = exchange.receive(datagram, at: now)
        self.exchange = exchange
        return settle(step, at: now, unseen: nil)
    }

    /// The listening ended at `now` (the instant it was to stop at passed); `unseen` says, in words,
    /// what the socket dropped before anyone read it.
    package mutating func listenEnded(at now: MonotonicInstant, unseen: String?) {
        guard var exchange else { return }
        let step = exchange.finish(at: now)
        self.exchange = exchange
        _ = settle(step, at: now, unseen: unseen)
    }

    /// The server's host said nothing listens on its port (ICMP port unreachable): this address is
    /// done with, and the next one is tried.
    package mutating func unreachable(_ error: any Error, at now: MonotonicInstant) {
        guard endExchange() != nil else { return }
        addressDone(with: error)
    }

    /// The socket failed otherwise (a network error): the request counts as lost.
    package mutating func transportFailed(_ error: any Error, at now: MonotonicInstant) {
        guard endExchange() != nil else { return }
        failed(error, timedOut: false, at: now)
    }

    /// The name resolved to these addresses.
    package mutating func resolved(_ addresses: [IPEndpoint]) {
        guard self.addresses == nil else { return }
        self.addresses = addresses
        if addresses.isEmpty { verdict = .failed(timedOut("\(host) has no address")) }
    }

    /// The name did not resolve: the measurement fails with `error`.
    package mutating func resolutionFailed(_ error: any Error) {
        guard addresses == nil else { return }
        verdict = .failed(error)
    }

    /// The exchange out is over: it is kept, and the next one will be its successor.
    private mutating func endExchange() -> Exchange? {
        guard let exchange else { return nil }
        exchanges.append(exchange)
        template = exchange
        self.exchange = nil
        return exchange
    }

    private mutating func settle(_ step: ExchangeStep<Exchange.Answer>, at now: MonotonicInstant, unseen: String?) -> Listening {
        if case .listen(let until) = step { return .listen(until: until) }
        guard let exchange = endExchange(), let address else { return .ended }
        switch step {
        case .listen:
            break
        case .done(let answer):
            answers.append(Answered(answer: answer, address: address, exchange: exchange))
            current?.answer()
        case .failed(let error):
            failed(error, timedOut: false, at: now)
        case .silent(let lastDropped):
            let reasons = [lastDropped.map { "last datagram refused: \($0)" }, unseen].compactMap { $0 }.map { "; \($0)" }.joined()
            lastSilence = reasons.isEmpty ? nil : reasons
            let waited = (sentAt ?? now).duration(to: now)
            failed(timedOut("from \(address) within \(waited.readable)" + reasons), timedOut: true, at: now)
        }
        return .ended
    }

    /// One request failed: the series says whether it goes on; a refusal that speaks for the server
    /// ends the measurement, one that speaks for this address moves to the next.
    private mutating func failed(_ error: any Error, timedOut: Bool, at now: MonotonicInstant) {
        guard var series = current else { return }
        let goesOn = series.fail(error, timedOut: timedOut, at: now)
        current = series
        if goesOn { return }
        switch PollOutcome(failure: error) {
        case .stop, .slowDown, .conflicting:
            verdict = answers.isEmpty ? .failed(error) : .done(answers)
        default:
            addressDone(with: error)
        }
    }

    /// This address is done with, for `error`: its answers are the verdict, or the next address is tried.
    private mutating func addressDone(with error: any Error) {
        lastError = error
        if !answers.isEmpty {
            verdict = .done(answers)
        } else {
            current = nil
            addressIndex += 1
        }
    }

    /// Why a series on `address` brought nothing.
    private func silence(of series: ExchangeSeries, at address: IPEndpoint, now: MonotonicInstant) -> any Error {
        if series.timedOut > 0, series.timedOut == series.failed {
            let waited = series.start.duration(to: now)
            let count = series.timedOut
            return timedOut("from \(address): \(count) request\(count == 1 ? "" : "s") unanswered in \(waited.readable)\(lastSilence ?? "")")
        }
        return series.lastError ?? lastError ?? timedOut("from \(address): the measurement's deadline passed before a request could be sent")
    }

    private mutating func end(with error: (any Error)?) -> Action {
        let action: Action = answers.isEmpty ? .failed(error ?? timedOut("from \(host): no answer")) : .done(answers)
        verdict = action
        return action
    }
}
