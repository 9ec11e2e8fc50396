/// How an NTP server describes its clock in replies.
public struct NTPServerPolicy: Sendable, Hashable {
    /// Stratum advertised (1–15). Default 1 with ``NTPReferenceID/local``.
    public var stratum: UInt8
    /// Reference identifier advertised.
    public var referenceID: NTPReferenceID
    /// Precision exponent advertised: the clock's resolution is 2^precision s. Default −20 (≈ 1 µs).
    public var precision: Int8
    /// Root delay advertised.
    public var rootDelay: Duration
    /// Root dispersion advertised.
    public var rootDispersion: Duration
    /// Leap indicator advertised.
    public var leap: NTPLeapIndicator

    /// Creates a policy.
    public init(
        stratum: UInt8 = 1, referenceID: NTPReferenceID = .local, precision: Int8 = -20,
        rootDelay: Duration = .zero, rootDispersion: Duration = .zero, leap: NTPLeapIndicator = .noWarning
    ) {
        self.stratum = stratum
        self.referenceID = referenceID
        self.precision = precision
        self.rootDelay = rootDelay
        self.rootDispersion = rootDispersion
        self.leap = leap
    }
}

/// Why an NTP server did not answer a datagram.
public enum NTPServerDropReason: String, Sendable, Hashable, CaseIterable {
    /// Not an NTP packet.
    case malformed
    /// Not a client (mode 3) request.
    case notClientMode
    /// A version other than 1–4.
    case unsupportedVersion
    /// The client is over its rate limit and this request is not due a kiss (or the server never
    /// kisses).
    case rateLimited
    /// The reply would be larger than the request.
    case replyTooLarge
    /// Larger than ``NTPServerResponder/maximumRequestSize``: ignored, never parsed (a receive
    /// buffer may have cut it, and what is left could parse as a request).
    case oversize
}

/// The verdict on a datagram an NTP server received.
public enum NTPServerCheck: Sendable, Hashable {
    /// A client request to answer.
    case answer(NTPPacket)
    /// Not answered, and why.
    case drop(NTPServerDropReason)
}

/// What an NTP server does with one datagram.
public enum NTPServerAction: Sendable, Hashable {
    /// Send this reply.
    case reply(NTPPacket)
    /// Send this Kiss-o'-Death `RATE`: the client is over its limit.
    case kiss(NTPPacket)
    /// Send nothing, for this reason.
    case drop(NTPServerDropReason)
}

/// The sans-IO heart of an NTP server: validate a datagram, limit its client's rate, and answer,
/// kiss or drop. A transport reads a datagram, calls ``respond(to:policy:receivedAt:admit:minimumPoll:transmitAt:)``
/// and sends what it returns.
public enum NTPServerResponder {
    /// The largest datagram answered, in bytes: a header with room for extension fields and a MAC.
    /// A transport gives each datagram more room than this, so that one cut to its buffer is still
    /// seen to be too large.
    public static var maximumRequestSize: Int { 2048 }

    /// Checks a request; returns the decoded request or why it is dropped.
    public static func check(_ bytes: some Collection<UInt8>) -> NTPServerCheck {
        guard bytes.count <= maximumRequestSize else { return .drop(.oversize) }
        guard let request = try? NTPPacket(decoding: bytes) else { return .drop(.malformed) }
        return check(request)
    }

    /// The same verdict on a datagram in raw memory (a socket buffer), on the specialized decoder.
    public static func check(_ bytes: UnsafeRawBufferPointer) -> NTPServerCheck {
        guard bytes.count <= maximumRequestSize else { return .drop(.oversize) }
        guard let request = try? NTPPacket(decoding: bytes) else { return .drop(.malformed) }
        return check(request)
    }

    private static func check(_ request: NTPPacket) -> NTPServerCheck {
        guard request.mode == .client else { return .drop(.notClientMode) }
        guard (1...4).contains(request.version) else { return .drop(.unsupportedVersion) }
        return .answer(request)
    }

    /// A mode-4 reply to a checked request.
    /// - Parameters:
    ///   - request: The client's request.
    ///   - policy: What the server advertises.
    ///   - receivedAt: The server's clock when the request arrived (T2).
    ///   - transmitAt: The server's clock as the reply leaves (T3); read it as late as possible.
    ///   - referenceTime: When the server's clock was last set (defaults to the receive time).
    public static func reply(
        to request: NTPPacket, policy: NTPServerPolicy, receivedAt: UnixTime, transmitAt: UnixTime,
        referenceTime: UnixTime? = nil
    ) -> NTPPacket {
        NTPPacket(
            leap: policy.leap, version: request.version, mode: .server, stratum: policy.stratum,
            poll: request.poll, precision: policy.precision, rootDelay: NTPShortFormat(policy.rootDelay),
            rootDispersion: NTPShortFormat(policy.rootDispersion), referenceID: policy.referenceID,
            referenceTimestamp: NTPTimestamp(referenceTime ?? receivedAt),
            originTimestamp: request.transmitTimestamp, receiveTimestamp: NTPTimestamp(receivedAt),
            transmitTimestamp: NTPTimestamp(transmitAt))
    }

    /// A Kiss-o'-Death reply: stratum 0, the code in the reference identifier, the alarm leap
    /// indicator, the request's transmit timestamp echoed as origin, zero receive and transmit
    /// timestamps (so a client that ignores kisses cannot use it).
    /// - Parameters:
    ///   - code: The kiss code (`RATE`, `DENY`, `RSTR`, …).
    ///   - request: The client's request.
    ///   - poll: The poll exponent the client must respect from now on: for `RATE`, log2 of the
    ///     interval its limit allows (``NTPRateLimiter/minimumPoll``); by default 17 (36 hours),
    ///     for a client told to go away. Never the client's own poll echoed.
    public static func kiss(_ code: NTPReferenceID, to request: NTPPacket, poll: Int8 = 17) -> NTPPacket {
        NTPPacket(
            leap: .unsynchronized, version: request.version, mode: .server, stratum: 0, poll: poll,
            referenceID: code, originTimestamp: request.transmitTimestamp)
    }

    /// The server's whole request policy for one datagram: validate it (size, mode, version), ask the
    /// rate limiter about its client, then reply, kiss or drop.
    /// - Parameters:
    ///   - bytes: The datagram as received.
    ///   - policy: What replies advertise.
    ///   - receivedAt: The server's clock when the datagram arrived (T2).
    ///   - admit: The rate limiter's decision for this datagram's client (called once, only for a
    ///     valid request); ``NTPRateLimiter/decide(_:at:)`` behind whatever lock the transport shares.
    ///   - minimumPoll: The least poll exponent a reply advertises (``NTPRateLimiter/minimumPoll``).
    ///   - transmitAt: Reads the server's clock for T3, as late as possible: called once, only for a reply.
    /// - Returns: The action to take.
    public static func respond(
        to bytes: UnsafeRawBufferPointer, policy: NTPServerPolicy, receivedAt: UnixTime,
        admit: () -> NTPRateLimitDecision, minimumPoll: Int8, transmitAt: () -> UnixTime
    ) -> NTPServerAction {
        let request: NTPPacket
        switch check(bytes) {
        case .drop(let reason): return .drop(reason)
        case .answer(let packet): request = packet
        }
        // Replies are bare headers; a request that decoded is at least one, so this holds — checked
        // all the same, as the server promises never to answer with more than it was sent.
        guard NTPPacket.headerSize <= bytes.count else { return .drop(.replyTooLarge) }
        switch admit() {
        case .admit:
            // The reply's poll is the client's, but no less than the limit allows (nor above 17).
            var request = request
            request.poll = NTPRateLimiter<NTPRateLimitKey>.replyPoll(requested: request.poll, minimumPoll: minimumPoll)
            return .reply(reply(to: request, policy: policy, receivedAt: receivedAt, transmitAt: transmitAt()))
        case .kiss(let poll):
            return .kiss(kiss(.rate, to: request, poll: poll))
        case .drop:
            return .drop(.rateLimited)
        }
    }
}
