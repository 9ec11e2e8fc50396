import TimeSync

/// One outstanding NTP client request and the checks its reply must pass (RFC 5905, RFC 4330).
///
/// Sans-IO: the transport stamps the monotonic clock when it sends ``packet`` (t1) and when a datagram
/// arrives (t4), and hands the bytes to `accept(_:receivedAt:limits:)`. The transmit timestamp sent
/// carries the wall clock's seconds and a random fraction, so an off-path attacker cannot guess the
/// origin timestamp a genuine reply echoes; t1 itself never leaves the device.
package struct NTPClientRequest: Sendable, Hashable {
    /// The transmit timestamp sent in the request, which a genuine reply echoes as its origin.
    package let transmitTimestamp: NTPTimestamp
    /// t1: when the request was sent, on the monotonic clock.
    package let sentAt: MonotonicInstant
    /// The wall clock when the request was sent: the pivot for the era of the reply's timestamps.
    package let wallTimeAtSend: UnixTime
    /// The poll exponent advertised in the request.
    package let poll: Int8
    /// The first packet that echoed our transmit timestamp, whatever its fate: a later identical one
    /// is a duplicate, a later different one a conflict.
    package private(set) var answer: NTPPacket?
    /// Whether a reply echoing our transmit timestamp has arrived.
    package var isAnswered: Bool { answer != nil }

    /// Creates a request about to be sent.
    /// - Parameters:
    ///   - wallTime: The local wall clock now (only its seconds go on the wire).
    ///   - monotonicTime: t1, the monotonic clock now.
    ///   - poll: The poll exponent to advertise (default 6, 64 s).
    ///   - generator: The source of the random low-order 32 bits of the transmit timestamp.
    package init(
        wallTime: UnixTime, monotonicTime: MonotonicInstant, poll: Int8 = 6,
        using generator: inout some RandomNumberGenerator
    ) {
        var stamp = NTPTimestamp(wallTime)
        stamp.fraction = generator.next()
        if stamp.isZero { stamp.fraction = 1 }  // zero means "unset" to servers
        transmitTimestamp = stamp
        sentAt = monotonicTime
        wallTimeAtSend = wallTime
        self.poll = poll
    }

    /// The NTPv4 mode-3 packet to send.
    package var packet: NTPPacket {
        NTPPacket(version: 4, mode: .client, poll: poll, transmitTimestamp: transmitTimestamp)
    }

    /// Checks a datagram that arrived for this request and turns it into a reply.
    ///
    /// The checks run in this order, and the first failure throws:
    /// 1. the bytes decode (`.malformedPacket`, with the `NTPPacketError` as
    ///    ``NTPReplyError/underlying``);
    /// 2. the origin timestamp equals our transmit timestamp (`.originMismatch`) — before anything
    ///    else, so a spoofed Kiss-o'-Death is ignored;
    /// 3. no reply has been accepted for this request yet: a second copy of the same packet is
    ///    `.duplicate` (networks duplicate datagrams); a second, *different* packet echoing our
    ///    origin is `.conflictingReplies` — two senders answered one request, and at most one of them
    ///    is the server: a spoofer on the path raced it. Keep listening a little after the first reply
    ///    to see it, and discard the exchange when it comes;
    /// 4. mode 4 (`.notServerMode`), version 3 or 4 (`.unsupportedVersion`);
    /// 5. stratum 0 with a printable ASCII code is a Kiss-o'-Death (`.kissOfDeath`, with
    ///    ``NTPReplyError/kissCode``);
    /// 6. leap indicator 3, stratum 0 without a code, or stratum ≥ 16 (`.unsynchronized`, with the
    ///    leap indicator and stratum the server sent);
    /// 6a. a precision exponent above ``NTPReplyLimits/maximumPrecision`` (`.precisionOutOfRange`);
    /// 7. non-zero receive and transmit timestamps (`.zeroTimestamp`);
    /// 8. root delay / 2 + root dispersion within the limit (`.rootDistanceExceeded`);
    /// 9. the four timestamps are consistent (`.inconsistentTimestamps`).
    ///
    /// Any datagram whose origin matches marks the request answered, whatever its fate after that.
    /// - Parameters:
    ///   - bytes: The UDP payload.
    ///   - receivedAt: t4, when the datagram arrived, on the monotonic clock.
    ///   - limits: The acceptance limits.
    /// - Returns: The validated reply.
    /// - Throws: ``NTPReplyError``.
    package mutating func accept(
        _ bytes: some Collection<UInt8>, receivedAt: MonotonicInstant, limits: NTPReplyLimits = .init()
    ) throws(NTPReplyError) -> NTPReply {
        let packet: NTPPacket
        do {
            packet = try NTPPacket(decoding: bytes)
        } catch {
            throw NTPReplyError(.malformedPacket, underlying: error)
        }
        return try accept(packet, receivedAt: receivedAt, limits: limits)
    }

    /// Checks a decoded packet that arrived for this request; see ``accept(_:receivedAt:limits:)``.
    /// - Throws: ``NTPReplyError``.
    package mutating func accept(
        _ packet: NTPPacket, receivedAt: MonotonicInstant, limits: NTPReplyLimits = .init()
    ) throws(NTPReplyError) -> NTPReply {
        guard packet.originTimestamp == transmitTimestamp else { throw NTPReplyError(.originMismatch) }
        if let answer {
            throw NTPReplyError(answer == packet ? .duplicate : .conflictingReplies)
        }
        answer = packet
        guard packet.mode == .server else { throw NTPReplyError(.notServerMode) }
        guard packet.version == 3 || packet.version == 4 else { throw NTPReplyError(.unsupportedVersion) }
        // Stratum 0 with an ASCII code is a Kiss-o'-Death; stratum 0 without one (chrony and ntpd send
        // reference ID 0 while they have no source) is a server that is not synchronized.
        if packet.stratum == 0, packet.referenceID.ascii != nil {
            throw NTPReplyError(.kissOfDeath, kissCode: packet.referenceID, kissPoll: packet.poll)
        }
        guard packet.leap != .unsynchronized, (1..<16).contains(packet.stratum) else {
            throw NTPReplyError(.unsynchronized, leap: packet.leap, stratum: packet.stratum)
        }
        guard packet.precision <= limits.maximumPrecision else { throw NTPReplyError(.precisionOutOfRange) }
        guard !packet.receiveTimestamp.isZero, !packet.transmitTimestamp.isZero else {
            throw NTPReplyError(.zeroTimestamp)
        }
        let unchecked = NTPReply(
            packet: packet, requestSent: sentAt,
            serverReceive: packet.receiveTimestamp.unixTime(near: wallTimeAtSend),
            serverTransmit: packet.transmitTimestamp.unixTime(near: wallTimeAtSend),
            responseReceived: receivedAt, bounds: nil)
        guard unchecked.rootDistance <= limits.maximumRootDistance else { throw NTPReplyError(.rootDistanceExceeded) }
        do {
            return try unchecked.checked()
        } catch {
            throw NTPReplyError(.inconsistentTimestamps, underlying: error)
        }
    }
}
