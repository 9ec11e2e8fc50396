import TimeSync
import TimeSyncWire

/// The sans-IO heart of an NTP server: validate a datagram, limit its client's rate, and answer,
/// kiss or drop. A transport reads a datagram, calls ``respond(to:policy:receivedAt:admit:minimumPoll:authenticator:transmitAt:)``
/// and sends what it returns.
package enum NTPServerResponder {
    /// The largest datagram answered, in bytes: a header with room for extension fields and a MAC.
    /// A transport gives each datagram more room than this, so that one cut to its buffer is still
    /// seen to be too large.
    package static var maximumRequestSize: Int { 2048 }

    /// Checks a request; returns the decoded request or why it is dropped.
    package static func check(_ bytes: some Collection<UInt8>) -> NTPServerCheck {
        guard bytes.count <= maximumRequestSize else { return .drop(.oversize) }
        guard let request = try? NTPPacket(decoding: bytes) else { return .drop(.malformed) }
        return check(request)
    }

    /// The same verdict on a datagram in raw memory (a socket buffer), nothing copied: the request
    /// answered is its header alone (``checkHeader(_:)``).
    package static func check(_ bytes: UnsafeRawBufferPointer) -> NTPServerCheck {
        switch checkHeader(bytes) {
        case .answer(let header, _): .answer(header)
        case .drop(let reason): .drop(reason)
        }
    }

    /// A datagram's header checked, and how many extension fields follow it; or why it is dropped.
    private enum HeaderCheck {
        case answer(NTPPacket, extensionFields: Int)
        case drop(NTPServerDropReason)
    }

    /// The verdict on a datagram in raw memory: its header and how many extension fields follow it.
    private static func checkHeader(_ bytes: UnsafeRawBufferPointer) -> HeaderCheck {
        guard bytes.count <= maximumRequestSize else { return .drop(.oversize) }
        guard let request = try? NTPPacket.decodeHeader(bytes) else { return .drop(.malformed) }
        switch check(request.header) {
        case .answer: return .answer(request.header, extensionFields: request.extensionFields)
        case .drop(let reason): return .drop(reason)
        }
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
    package static func reply(
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
    ///     interval its limit allows (`NTPRateLimiter.minimumPoll`); by default 17 (36 hours),
    ///     for a client told to go away. Never the client's own poll echoed.
    package static func kiss(_ code: NTPReferenceID, to request: NTPPacket, poll: Int8 = 17) -> NTPPacket {
        NTPPacket(
            leap: .unsynchronized, version: request.version, mode: .server, stratum: 0, poll: poll,
            referenceID: code, originTimestamp: request.transmitTimestamp)
    }

    /// The server's whole request policy for one datagram: validate it (size, mode, version), ask the
    /// rate limiter about its client, authenticate it when it asks to be (NTS), then reply, kiss or
    /// drop. The answer is written into `reply`, nothing allocated.
    /// - Parameters:
    ///   - bytes: The datagram as received.
    ///   - reply: Where the answer goes: at least as many bytes as the datagram (and 48).
    ///   - policy: What replies advertise.
    ///   - receivedAt: The server's clock when the datagram arrived (T2).
    ///   - admit: The rate limiter's decision for this datagram's client (called once, only for a
    ///     valid request); `NTPRateLimiter.decide(_:at:)` behind whatever lock the transport shares.
    ///   - minimumPoll: The least poll exponent a reply advertises (`NTPRateLimiter.minimumPoll`).
    ///   - authenticator: Checks requests that carry extension fields and seals their replies (NTS);
    ///     `nil` answers every request as plain SNTP. Called only for an admitted request, so a flood
    ///     over the rate limit costs no cryptography.
    ///   - transmitAt: Reads the server's clock for T3, as late as possible: called once, only for a reply.
    /// - Returns: The action to take: send `reply`'s first `length` bytes, or drop.
    package static func respond(
        to bytes: UnsafeRawBufferPointer, into reply: UnsafeMutableRawBufferPointer, policy: NTPServerPolicy, receivedAt: UnixTime,
        admit: () -> NTPRateLimitDecision, minimumPoll: Int8, authenticator: (any NTPRequestAuthenticator)? = nil,
        transmitAt: () -> UnixTime
    ) -> NTPServerAction {
        precondition(reply.count >= max(bytes.count, NTPPacket.headerSize), "the reply buffer holds at least the request")
        var request: NTPPacket
        let extensionFields: Int
        switch checkHeader(bytes) {
        case .drop(let reason): return .drop(reason)
        case .answer(let header, let fields): (request, extensionFields) = (header, fields)
        }
        switch admit() {
        case .admit:
            // The reply's poll is the client's, but no less than the limit allows (nor above 17).
            request.poll = NTPRateLimiter<NTPRateLimitKey>.replyPoll(requested: request.poll, minimumPoll: minimumPoll)
            if let authenticator, extensionFields > 0 {
                let answer = authenticator.authenticate(bytes, into: UnsafeMutableRawBufferPointer(rebasing: reply[..<bytes.count])) { kind in
                    switch kind {
                    case .reply: Self.reply(to: request, policy: policy, receivedAt: receivedAt, transmitAt: transmitAt())
                    case .negativeAcknowledgment: kiss(.ntsNegativeAcknowledgment, to: request, poll: request.poll)
                    }
                }
                switch answer {
                case .none: break
                case .drop(let reason): return .drop(reason)
                case .negativeAcknowledgment(let length):
                    guard length <= bytes.count else { return .drop(.replyTooLarge) }
                    return .negativeAcknowledgment(length: length)
                case .authenticated(let length):
                    // Never more than the request: the server promises not to amplify.
                    guard length <= bytes.count else { return .drop(.replyTooLarge) }
                    return .authenticatedReply(length: length)
                }
            }
            let header = Self.reply(to: request, policy: policy, receivedAt: receivedAt, transmitAt: transmitAt())
            return .reply(length: header.writeHeader(to: reply))
        case .kiss(let poll):
            return .kiss(length: kiss(.rate, to: request, poll: poll).writeHeader(to: reply))
        case .drop:
            return .drop(.rateLimited)
        }
    }
}
