import TimeSync

/// One NTS-protected NTP request and its reply (RFC 8915 §5), with no I/O.
///
/// It spends one cookie of the association (taken out when the exchange is made: a cookie is never
/// sent twice, whatever happens next), asks for as many new ones as the jar lacks, and keeps those an
/// authenticated reply brings. A datagram that fails authentication, or is stray, changes nothing: it
/// is dropped, kept in ``dropped``, and the wait goes on. Only an authenticated reply ends the
/// exchange, with its NTP checks' verdict. When the wait ends with an NTS NAK among the dropped
/// datagrams, the association is marked spent.
package struct NTSClientExchange: DatagramExchange {
    /// The keys and cookies: updated with the reply's cookies, or marked spent after a NAK.
    package private(set) var association: NTSAssociation
    /// Datagrams dropped while waiting (altered, forged, stray, NAKs), in arrival order.
    package private(set) var dropped: [NTSReplyError] = []
    private let limits: NTPReplyLimits
    private let timeout: Duration
    private let cookie: [UInt8]
    private let placeholders: Int
    private var request: NTSClientRequest?

    /// An exchange spending one of `association`'s cookies.
    /// - Throws: `NTSKEError.noCookies` when none is left.
    package init(association: NTSAssociation, limits: NTPReplyLimits, timeout: Duration) throws(NTSKEError) {
        var association = association
        guard let cookie = association.takeCookie() else { throw NTSKEError(.noCookies) }
        self.cookie = cookie
        placeholders = association.placeholdersWanted
        self.association = association
        self.limits = limits
        self.timeout = timeout
    }

    package mutating func start(at now: MonotonicInstant, wallTime: UnixTime) -> (datagram: [UInt8], deadline: MonotonicInstant) {
        var generator = SystemRandomNumberGenerator()
        let ntp = NTPClientRequest(wallTime: wallTime, monotonicTime: now, using: &generator)
        let request = NTSClientRequest(
            ntp: ntp, cookie: cookie, placeholders: placeholders, cipher: association.clientToServer, using: &generator)
        self.request = request
        return (request.bytes, now.advanced(by: timeout))
    }

    package mutating func receive(_ datagram: [UInt8], at now: MonotonicInstant) -> ExchangeStep<NTPReply> {
        guard var request else { return .listen(until: nil) }
        defer { self.request = request }
        do {
            let (reply, cookies) = try request.accept(datagram, receivedAt: now, limits: limits, cipher: association.serverToClient)
            association.add(cookies: cookies)
            return .done(reply)
        } catch {
            guard error.isDroppedDatagram else { return .failed(error) }
            dropped.append(error)
            return .listen(until: nil)
        }
    }

    /// A new request spending the next cookie, with the cookies this exchange brought.
    /// - Throws: `NTSReplyError.negativeAcknowledgment` after an NTS NAK (the keys must be renewed
    ///   first), `NTSKEError.noCookies` when none is left.
    package func successor() throws -> NTSClientExchange {
        if association.wasRejected { throw NTSReplyError.negativeAcknowledgment }
        return try NTSClientExchange(association: association, limits: limits, timeout: timeout)
    }

    package mutating func finish(at now: MonotonicInstant) -> ExchangeStep<NTPReply> {
        if dropped.contains(where: { $0.code == .negativeAcknowledgment }) {
            // No authenticated reply, and an NTS NAK: the server could not use the cookie (its keys
            // rotated, or it lost them). New keys next time.
            association.rejected()
            return .failed(NTSReplyError.negativeAcknowledgment)
        }
        if let last = dropped.last { return .failed(last) }
        return .silent(lastDropped: nil)
    }
}
