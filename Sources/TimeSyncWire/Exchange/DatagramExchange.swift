import TimeSync

/// One request over UDP and the datagrams that answer it, as a state machine with no I/O: a driver
/// sends what ``start(at:wallTime:)`` returns, hands over every datagram that arrives with the instant
/// it was read, and closes when the step says so. The exchange owns everything a protocol decides on
/// the way: which datagrams are stray (ignored, the wait goes on), how long to listen for a conflicting
/// second reply, what the final answer or refusal is.
package protocol DatagramExchange: Sendable {
    /// What a successful exchange gives.
    associatedtype Answer: Sendable

    /// The datagram to send at `now` (stamped as the request's t1) and the instant the exchange gives
    /// up listening, at the latest.
    mutating func start(at now: MonotonicInstant, wallTime: UnixTime) -> (datagram: [UInt8], deadline: MonotonicInstant)

    /// A datagram that arrived at `now`.
    mutating func receive(_ datagram: [UInt8], at now: MonotonicInstant) -> ExchangeStep<Answer>

    /// The listening ended (its deadline, or the instant a ``ExchangeStep/listen(until:)`` step named,
    /// passed) at `now`: what the exchange makes of what it saw. Never ``ExchangeStep/listen(until:)``.
    mutating func finish(at now: MonotonicInstant) -> ExchangeStep<Answer>

    /// The next exchange with the same server, not yet started, after this one ended: a new request,
    /// carrying over what the protocol keeps between requests (NTS's keys and the cookies this
    /// exchange brought).
    /// - Throws: When no further request can be made (NTS: no cookie left, or the server refused
    ///   the keys): the measurement ends.
    func successor() throws -> Self
}

/// What an exchange asks of its driver.
package enum ExchangeStep<Answer: Sendable>: Sendable {
    /// Keep listening; stop at `until` (or at the exchange's deadline if that is sooner, or `nil`).
    case listen(until: MonotonicInstant?)
    /// The exchange is over: a validated answer.
    case done(Answer)
    /// The exchange is over: the server refused, or the answer failed a check that ends it.
    case failed(any Error)
    /// The exchange is over and nothing usable arrived: the driver reports a timeout, naming
    /// `lastDropped`, the last datagram refused on the way, if any.
    case silent(lastDropped: (any Error)?)
}
