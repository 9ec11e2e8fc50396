import TimeSync

/// One Roughtime request and its verified reply, with no I/O.
///
/// A datagram that does not verify under the pinned key (a forgery, a reply to another request, a
/// broken message) is dropped, kept in ``dropped``, and the wait goes on: only a signed reply ends
/// the exchange.
package struct RoughtimeClientExchange: DatagramExchange {
    /// A verified reply and when the exchange's request left and its reply arrived.
    package struct Answer: Sendable {
        package var response: RoughtimeResponse
        package var requestSent: MonotonicInstant
        package var responseReceived: MonotonicInstant
    }

    /// The request sent.
    package let request: RoughtimeRequest
    /// The server's long-term Ed25519 public key.
    package let publicKey: [UInt8]
    /// Datagrams that arrived but did not verify, with why.
    package private(set) var dropped: [RoughtimeError] = []
    private let timeout: Duration
    private var sent: MonotonicInstant?

    /// An exchange sending `request`, whose reply must be signed under `publicKey`.
    package init(request: RoughtimeRequest, publicKey: [UInt8], timeout: Duration) {
        self.request = request
        self.publicKey = publicKey
        self.timeout = timeout
    }

    package mutating func start(at now: MonotonicInstant, wallTime: UnixTime) -> (datagram: [UInt8], deadline: MonotonicInstant) {
        sent = now
        return (request.packet, now.advanced(by: timeout))
    }

    package mutating func receive(_ datagram: [UInt8], at now: MonotonicInstant) -> ExchangeStep<Answer> {
        guard let sent else { return .listen(until: nil) }
        do {
            let response = try RoughtimeResponse.verify(datagram, request: request, publicKey: publicKey)
            return .done(Answer(response: response, requestSent: sent, responseReceived: now))
        } catch {
            dropped.append(error)
            return .listen(until: nil)
        }
    }

    /// A new request to the same server, with a fresh random nonce of the same length (a chained
    /// nonce is for one request only).
    package func successor() -> RoughtimeClientExchange {
        var generator = SystemRandomNumberGenerator()
        let next = RoughtimeRequest(versions: request.versions, nonce: generator.bytes(request.nonce.count), serverKey: publicKey)
        return RoughtimeClientExchange(request: next, publicKey: publicKey, timeout: timeout)
    }

    package mutating func finish(at now: MonotonicInstant) -> ExchangeStep<Answer> {
        .silent(lastDropped: dropped.last)
    }
}
