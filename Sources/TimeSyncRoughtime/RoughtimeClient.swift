import TimeSync
import TimeSyncWire
import TimeSyncSockets

/// A Roughtime client on the system's UDP sockets: one request, one verified reply, under one deadline.
///
/// A datagram that does not verify (a forgery, a reply to another request, a broken message) is
/// dropped and the wait goes on; only a reply signed under the pinned key becomes a time.
@available(watchOS, unavailable, message: "watchOS apps cannot use BSD sockets (Apple TN3135): use TimeSynchronizer.https() or TimeSource.https(_:)")
public struct RoughtimeClient: Sendable {
    /// The server's host name or address.
    public let host: String
    /// The server's UDP port.
    public let port: Int
    /// The server's long-term Ed25519 public key (32 bytes).
    public let publicKey: [UInt8]
    /// The versions offered.
    public let versions: [RoughtimeVersion]
    /// The clocks.
    public let timeBase: any TimeBase
    /// Which addresses the name may resolve to.
    public let addressPolicy: AddressPolicy

    /// One verified exchange.
    public struct Exchange: Sendable {
        /// The request as sent.
        public let request: RoughtimeRequest
        /// The verified reply.
        public let response: RoughtimeResponse
        /// When the request left, on the monotonic clock.
        public let requestSent: MonotonicInstant
        /// When the reply arrived, on the monotonic clock.
        public let responseReceived: MonotonicInstant
        /// The address that answered.
        public let address: IPEndpoint
        /// Datagrams that arrived but did not verify, with why.
        public let dropped: [RoughtimeError]

        /// An exchange from its parts: one ``RoughtimeClient/exchange(nonce:timeout:)`` made, or one
        /// recorded (the response must have been verified against the request).
        public init(
            request: RoughtimeRequest, response: RoughtimeResponse, requestSent: MonotonicInstant, responseReceived: MonotonicInstant,
            address: IPEndpoint, dropped: [RoughtimeError] = []
        ) {
            self.request = request
            self.response = response
            self.requestSent = requestSent
            self.responseReceived = responseReceived
            self.address = address
            self.dropped = dropped
        }

        /// The exchange as a sample: the signed interval MIDP ± RADI held at some instant between
        /// sending and receiving, so θ lies in [MIDP − RADI − t4, MIDP + RADI − t1].
        /// - Throws: `SampleError` for an interval outside the sample limits (a radius over 16 s).
        package func sample(source: String) throws -> OffsetSample {
            try OffsetSample.exchange(
                source: source, requestSent: requestSent, serverReceive: response.midpoint, serverTransmit: response.midpoint,
                responseReceived: responseReceived, serverUncertainty: response.radius)
        }
    }

    /// A client for the server at `host:port` with the long-term key `publicKey`.
    public init(
        host: String, port: Int, publicKey: [UInt8], versions: [RoughtimeVersion] = RoughtimeVersion.defaultOffer,
        timeBase: (any TimeBase)? = nil, addressPolicy: AddressPolicy = .publicOnly
    ) {
        let timeBase = timeBase ?? SystemTimeBase()
        self.host = host
        self.port = port
        self.publicKey = publicKey
        self.versions = versions.isEmpty ? RoughtimeVersion.defaultOffer : versions
        self.timeBase = timeBase
        self.addressPolicy = addressPolicy
    }

    /// `roughtime://HOST:PORT`: the name this client's samples carry.
    public var name: String { "roughtime://" + HostPort.format(host: host, port: port) }

    /// Queries the server once.
    /// - Parameters:
    ///   - nonce: The nonce (32 bytes; 64 for Google's protocol): random by default, or a chained
    ///     one (`RoughtimeChain.nonce(blind:)`).
    ///   - timeout: The deadline for the whole exchange, resolution included.
    /// - Returns: The verified exchange.
    /// - Throws: `RoughtimeError` (`.timeout` naming the last reason a datagram was refused),
    ///   `NTPClientError` for resolution and socket failures, `CancellationError`.
    public func exchange(nonce: [UInt8]? = nil, timeout: Duration = .seconds(5)) async throws -> Exchange {
        try await exchanges(nonce: nonce, series: .init(), until: .after(timeout, on: timeBase)).exchanges[0]
    }

    /// Verified exchanges as `series` asks (see `DatagramMeasurement`: a lost request is sent again
    /// while `series.maxRequests` allows), all by `deadline`, resolution included.
    /// - Parameters:
    ///   - nonce: The first request's nonce (random by default); later requests get random ones.
    /// - Returns: The verified exchanges, oldest first, and how many requests were sent.
    /// - Throws: What ``exchange(nonce:timeout:)`` throws.
    package func exchanges(nonce: [UInt8]? = nil, series: DatagramMeasurement<RoughtimeClientExchange>.Series, until deadline: Deadline)
        async throws -> (exchanges: [Exchange], requests: Int)
    {
        var generator = SystemRandomNumberGenerator()
        let request = RoughtimeRequest(
            versions: versions, nonce: nonce ?? generator.bytes(versions.contains(.google) ? 64 : 32), serverKey: publicKey)
        var measurement = DatagramMeasurement(
            host: host, port: port, first: RoughtimeClientExchange(request: request, publicKey: publicKey, timeout: deadline.remaining(on: timeBase)),
            series: series, deadline: deadline, timedOut: { RoughtimeError(.timeout, $0) })
        let answers = try await measurement.run(on: timeBase, addressPolicy: addressPolicy)
        let exchanges = answers.map { answered in
            Exchange(
                request: answered.exchange.request, response: answered.answer.response, requestSent: answered.answer.requestSent,
                responseReceived: answered.answer.responseReceived, address: answered.address, dropped: answered.exchange.dropped)
        }
        return (exchanges, measurement.requests)
    }
}

/// One Roughtime server as a `SourceDriver`: each measurement is one verified exchange, and the signed
/// interval, widened by the round trip, enters the estimator as an authenticated source that bounds
/// what unauthenticated sources may claim.
@available(watchOS, unavailable, message: "watchOS apps cannot use BSD sockets (Apple TN3135): use TimeSynchronizer.https() or TimeSource.https(_:)")
package struct RoughtimeTimeSource: SourceDriver {
    /// The client.
    package let client: RoughtimeClient
    /// `roughtime://host:port`; the samples carry it.
    package let name: String

    /// Roughtime tells UTC.
    package var reference: TimeReference { .utc }
    /// Signed by the server: a floor under unauthenticated sources.
    package var isAuthenticated: Bool { true }

    /// A source for `client`'s server.
    package init(client: RoughtimeClient) {
        self.client = client
        name = client.name
    }

    package func measure(until deadline: Deadline) async throws -> [OffsetSample] {
        [try await client.exchanges(series: .init(), until: deadline).exchanges[0].sample(source: name)]
    }
}

extension TimeSource {
    /// A Roughtime server, pinned by its long-term public key: each measurement is one signed
    /// exchange, and the signed interval, widened by the round trip, bounds what unsigned sources
    /// may claim.
    /// - Parameters:
    ///   - host: The server's name or address.
    ///   - port: Its UDP port.
    ///   - publicKey: The server's long-term Ed25519 key (32 bytes).
    ///   - versions: The versions offered (the current drafts by default).
    ///   - addressPolicy: Which addresses the name may resolve to (default: public ones only).
    @available(watchOS, unavailable, message: "watchOS apps cannot use BSD sockets (Apple TN3135): use .https(_:)")
    public static func roughtime(
        _ host: String, port: Int, publicKey: [UInt8], versions: [RoughtimeVersion] = RoughtimeVersion.defaultOffer,
        addressPolicy: AddressPolicy = .publicOnly
    ) -> TimeSource {
        TimeSource {
            RoughtimeTimeSource(
                client: RoughtimeClient(host: host, port: port, publicKey: publicKey, versions: versions, timeBase: $0, addressPolicy: addressPolicy))
        }
    }
}

extension TimeSource {
    /// A Roughtime server named as `roughtime://HOST:PORT?key=BASE64` (``RoughtimeServerURL``), as
    /// ``roughtime(_:port:publicKey:versions:addressPolicy:)``.
    @available(watchOS, unavailable, message: "watchOS apps cannot use BSD sockets (Apple TN3135): use .https(_:)")
    public static func roughtime(_ server: RoughtimeServerURL, addressPolicy: AddressPolicy = .publicOnly) -> TimeSource {
        roughtime(server.host, port: server.port, publicKey: server.publicKey, versions: server.versions, addressPolicy: addressPolicy)
    }
}
