import TimeSync

/// Limits a reply must stay within to be used.
public struct NTPReplyLimits: Sendable, Hashable {
    /// The largest root distance (root delay / 2 + root dispersion) accepted. Default 1.5 s,
    /// NTP's `MAXDIST`.
    public var maximumRootDistance: Duration
    /// The coarsest clock resolution accepted, as a precision exponent (2^precision s). Default 0:
    /// a server whose clock ticks more coarsely than once a second cannot stamp an NTP reply usefully.
    public var maximumPrecision: Int8

    /// Creates limits.
    public init(maximumRootDistance: Duration = .milliseconds(1500), maximumPrecision: Int8 = 0) {
        self.maximumRootDistance = maximumRootDistance
        self.maximumPrecision = maximumPrecision
    }
}

/// A server reply that passed every check of `NTPClientRequest.accept(_:receivedAt:limits:)`.
public struct NTPReply: Sendable, Hashable {
    /// The packet as received.
    public let packet: NTPPacket
    /// t1: when the request left, on the monotonic clock.
    public let requestSent: MonotonicInstant
    /// t2: the server's clock when the request arrived (era resolved against the local wall clock).
    public let serverReceive: UnixTime
    /// t3: the server's clock when the reply left.
    public let serverTransmit: UnixTime
    /// t4: when the reply arrived, on the monotonic clock.
    public let responseReceived: MonotonicInstant
    /// What the timestamps prove, checked once when the reply is made; `nil` when they contradict
    /// each other (``sample(source:)`` then says why).
    let bounds: OffsetSample.ExchangeBounds?

    /// Creates a reply from its parts; the timestamps are checked once, here.
    public init(
        packet: NTPPacket, requestSent: MonotonicInstant, serverReceive: UnixTime, serverTransmit: UnixTime,
        responseReceived: MonotonicInstant
    ) {
        self.init(
            packet: packet, requestSent: requestSent, serverReceive: serverReceive, serverTransmit: serverTransmit,
            responseReceived: responseReceived, bounds: nil)
        if let checked = try? checked() { self = checked }
    }

    package init(
        packet: NTPPacket, requestSent: MonotonicInstant, serverReceive: UnixTime, serverTransmit: UnixTime,
        responseReceived: MonotonicInstant, bounds: OffsetSample.ExchangeBounds?
    ) {
        self.packet = packet
        self.requestSent = requestSent
        self.serverReceive = serverReceive
        self.serverTransmit = serverTransmit
        self.responseReceived = responseReceived
        self.bounds = bounds
    }

    /// The reply with the bounds its timestamps prove.
    /// - Throws: `SampleError` when they contradict each other.
    package func checked() throws(SampleError) -> NTPReply {
        let bounds = try OffsetSample.ExchangeBounds(
            requestSent: requestSent, serverReceive: serverReceive, serverTransmit: serverTransmit,
            responseReceived: responseReceived, serverUncertainty: serverUncertainty)
        return NTPReply(
            packet: packet, requestSent: requestSent, serverReceive: serverReceive, serverTransmit: serverTransmit,
            responseReceived: responseReceived, bounds: bounds)
    }

    /// Root delay / 2 + root dispersion: how far the server may be from its reference.
    public var rootDistance: Duration {
        packet.rootDelay.duration / 2 + packet.rootDispersion.duration
    }

    /// The server's clock resolution, 2^precision seconds (at most one day).
    public var precision: Duration {
        .seconds(double: Double.pow2(min(Int(packet.precision), 16)))
    }

    /// How far the server's stamps may be off: root distance plus its precision.
    public var serverUncertainty: Duration { rootDistance + precision }

    /// The observation as a sample: θ ∈ [t3 − t4, t2 − t1] widened by ``serverUncertainty``.
    /// - Parameter source: The server's name (samples of one source are filtered together).
    /// - Throws: `SampleError` for an empty source name (the timestamps were checked on acceptance).
    package func sample(source: String) throws(SampleError) -> OffsetSample {
        guard let bounds else {
            return try OffsetSample.exchange(
                source: source, requestSent: requestSent, serverReceive: serverReceive, serverTransmit: serverTransmit,
                responseReceived: responseReceived, serverUncertainty: serverUncertainty)
        }
        return try OffsetSample(source: source, offset: bounds.offset, time: responseReceived, span: bounds.span, delay: bounds.delay)
    }
}

extension Double {
    fileprivate static func pow2(_ exponent: Int) -> Double {
        exponent >= 0 ? Double(1 << exponent) : 1 / Double(1 << min(-exponent, 62))
    }
}
