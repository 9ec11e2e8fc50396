import TimeSync

/// One NTP request and its reply (RFC 5905, RFC 4330), with no I/O: what `NTPClient` runs on a
/// socket and an NTS exchange runs underneath.
///
/// A reply whose origin does not match, an exact duplicate or an undecodable datagram is stray: it is
/// ignored and the wait goes on (if nothing else comes, it is the exchange's answer rather than a
/// timeout). Any other rejection of a reply that answers the request (Kiss-o'-Death, unsynchronized,
/// zero timestamps, …) ends the exchange. After the first valid reply the exchange listens on for
/// ``conflictWindow``: a second, different reply to the same request means someone on the path
/// answered besides the server, and the exchange fails with `NTPReplyError.conflictingReplies`.
package struct NTPClientExchange: DatagramExchange {
    /// The limits replies must meet.
    package let limits: NTPReplyLimits
    /// How long to listen after the first valid reply.
    package let conflictWindow: NTPConflictWindow
    /// How long the exchange listens at most, from its start.
    package let timeout: Duration
    /// The request, once started.
    package private(set) var request: NTPClientRequest?
    private var accepted: NTPReply?
    private var lastStray: NTPReplyError?

    /// An exchange not yet started.
    package init(limits: NTPReplyLimits, conflictWindow: NTPConflictWindow, timeout: Duration) {
        self.limits = limits
        self.conflictWindow = conflictWindow
        self.timeout = timeout
    }

    package mutating func start(at now: MonotonicInstant, wallTime: UnixTime) -> (datagram: [UInt8], deadline: MonotonicInstant) {
        var generator = SystemRandomNumberGenerator()
        let request = NTPClientRequest(wallTime: wallTime, monotonicTime: now, using: &generator)
        self.request = request
        return (request.packet.encoded(), now.advanced(by: timeout))
    }

    package mutating func receive(_ datagram: [UInt8], at now: MonotonicInstant) -> ExchangeStep<NTPReply> {
        guard var request else { return .listen(until: nil) }
        defer { self.request = request }
        do {
            return accepted(try request.accept(datagram, receivedAt: now, limits: limits), at: now)
        } catch {
            return rejected(error)
        }
    }

    /// A reply that passed every check (of this request, or of an NTS request wrapping it).
    package mutating func accepted(_ reply: NTPReply, at now: MonotonicInstant) -> ExchangeStep<NTPReply> {
        let wait = conflictWindow.wait(roundTrip: reply.requestSent.duration(to: reply.responseReceived))
        guard wait > .zero else { return .done(reply) }
        accepted = reply
        return .listen(until: now.advanced(by: wait))
    }

    /// A datagram refused: stray ones are remembered and the wait goes on; any other refusal ends it.
    package mutating func rejected(_ error: NTPReplyError) -> ExchangeStep<NTPReply> {
        guard error.isStray else { return .failed(error) }
        lastStray = error
        return .listen(until: nil)
    }

    /// A new request under the same limits.
    package func successor() -> NTPClientExchange {
        NTPClientExchange(limits: limits, conflictWindow: conflictWindow, timeout: timeout)
    }

    package mutating func finish(at now: MonotonicInstant) -> ExchangeStep<NTPReply> {
        if let accepted { return .done(accepted) }
        if let lastStray { return .failed(lastStray) }
        return .silent(lastDropped: nil)
    }
}

extension NTPReplyError {
    /// Whether the datagram was not the reply to this request (the wait goes on) rather than a final
    /// answer.
    package var isStray: Bool {
        code == .originMismatch || code == .duplicate || code == .malformedPacket
    }
}
