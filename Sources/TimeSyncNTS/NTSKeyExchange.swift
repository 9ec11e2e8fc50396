#if NTS
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS
import TimeSync
import TimeSyncWire

/// An NTS key exchange (RFC 8915 §4) as a client: TLS 1.3 with ALPN `ntske/1` to the server's
/// NTS-KE port, a request for NTPv4 with AES-SIV-CMAC-256, the server's records up to End of Message,
/// and the two keys exported from the session.
public struct NTSKeyExchange: Sendable {
    /// The NTS-KE port of RFC 8915.
    public static let defaultPort = 4460
    /// The ALPN protocol of NTS-KE.
    public static let applicationProtocol = "ntske/1"
    /// The most bytes a server's response may take.
    public static let maximumResponseSize = 16 * 1024

    /// Whom to trust for the server's certificate.
    public struct Trust: Sendable, Hashable {
        /// PEM files of further certificate authorities, trusted beside the system's.
        public var additionalAuthorities: [String]

        /// The system's trust store, and the certificate authorities in these PEM files.
        public init(additionalAuthorities: [String] = []) {
            self.additionalAuthorities = additionalAuthorities
        }

        /// The system's trust store alone.
        public static let system = Trust()
    }

    /// What a key exchange produced.
    public struct Result: Sendable {
        /// The server's response.
        package var response: NTSKEResponse
        /// The client-to-server key.
        public var clientToServerKey: [UInt8]
        /// The server-to-client key.
        public var serverToClientKey: [UInt8]
        /// How long the exchange took, from before the connection to End of Message.
        public var duration: Duration
        /// The cookies the server gave (1 to 8), each to be sent once in an NTS request.
        public var cookies: [[UInt8]] { response.cookies }
        /// The NTP server the requests go to, when the key exchange names one (else its own host).
        public var ntpServer: String? { response.server }
        /// The NTP port the requests go to, when the key exchange names one (else 123).
        public var ntpPort: UInt16? { response.port }
    }

    /// The server's host name or address (the certificate must name it).
    public var host: String
    /// The NTS-KE port.
    public var port: Int
    /// Whom to trust for the certificate.
    public var trust: Trust

    /// A key exchange with `host`.
    public init(host: String, port: Int = NTSKeyExchange.defaultPort, trust: Trust = .system) {
        self.host = host
        self.port = port
        self.trust = trust
    }

    /// Connects, exchanges records and exports the keys, all within `timeout`.
    /// - Parameters:
    ///   - timeout: The deadline of the whole exchange (connection, handshake, records).
    ///   - group: The event loops (default: NIO's shared singleton).
    /// - Throws: `NTSKEError`: `.connection`, `.untrustedCertificate`, `.tls`, `.noApplicationProtocol`,
    ///   `.timeout`, `.incompleteMessage`, or what the response breaks (`.serverError`, …); each
    ///   names the server.
    public func perform(timeout: Duration, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) async throws -> Result {
        let started = ContinuousClock.now
        let request = NTSKERequest()
        let (records, secret) = try await exchange(NTSKERecord.encode(request.records), timeout: timeout, group: group)
        let name = HostPort.format(host: host, port: port)
        let response: NTSKEResponse
        do {
            response = try NTSKEResponse(records: records, request: request)
        } catch {
            throw error.prefixed(name)
        }
        guard let secret else {
            throw NTSKEError(.tls, "\(name): the TLS session's exporter secret was not reported")
        }
        let keys = TLSExporter.keys(exporterSecret: secret, algorithm: response.algorithm, length: NTSAEADAlgorithm.aesSIVCMAC256KeyLength)
        return Result(
            response: response, clientToServerKey: keys.clientToServer, serverToClientKey: keys.serverToClient,
            duration: started.duration(to: .now))
    }

    /// Sends `request` as it is (any bytes, for testing a server) and returns the records the server
    /// answers with, up to End of Message, within `timeout`.
    package func records(sending request: [UInt8], timeout: Duration) async throws -> [NTSKERecord] {
        try await exchange(request, timeout: timeout, group: MultiThreadedEventLoopGroup.singleton).records
    }

    /// Connects, sends `request` once TLS is up, reads records up to End of Message.
    /// - Returns: The records and the session's exporter secret (`nil` if the key log never gave it).
    private func exchange(_ request: [UInt8], timeout: Duration, group: any EventLoopGroup) async throws -> (records: [NTSKERecord], secret: [UInt8]?) {
        let secret = NIOLockedValueBox<[UInt8]?>(nil)
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = .tlsv13
        configuration.applicationProtocols = [Self.applicationProtocol]
        configuration.additionalTrustRoots = trust.additionalAuthorities.map { .file($0) }
        configuration.keyLogCallback = TLSExporter.keyLog(into: secret)
        let name = HostPort.format(host: host, port: port)
        let context: NIOSSLContext
        do {
            // One context per exchange: the key log then reports this exchange's secret only.
            context = try NIOSSLContext(configuration: configuration)
        } catch {
            throw NTSKEError(.tls, "\(name): \(error)", underlying: error)
        }
        let host = self.host
        let hostname: String? = IPAddress(host) == nil ? host : nil
        let loop = group.next()
        let promise = loop.makePromise(of: [NTSKERecord].self)
        let deadline = loop.scheduleTask(in: .nanoseconds(Int64(max(.zero, timeout).nanosecondsClamped))) {
            promise.fail(NTSKEError(.timeout, "\(name) did not finish within \(timeout.readable)"))
        }
        let channel: any Channel
        do {
            channel = try await ClientBootstrap(group: loop)
                .connectTimeout(.nanoseconds(Int64(max(.zero, timeout).nanosecondsClamped)))
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: context, serverHostname: hostname))
                        try channel.pipeline.syncOperations.addHandler(NTSKEClientHandler(request: request, promise: promise))
                    }
                }
                .connect(host: host, port: port).get()
        } catch {
            deadline.cancel()
            promise.fail(error)
            throw Self.connectionError(error, name: name, timeout: timeout)
        }
        do {
            let records = try await promise.futureResult.get()
            deadline.cancel()
            channel.close(promise: nil)
            return (records, secret.withLockedValue { $0 })
        } catch {
            deadline.cancel()
            channel.close(promise: nil)
            throw Self.keyExchangeError(error, name: name)
        }
    }

    /// A failed connection as an `NTSKEError` naming the server: `.timeout` when no connection was
    /// made within the deadline (a server that drops the connection's first packet, a full listen
    /// queue), `.connection` when it failed (refused, no route, a name that does not resolve).
    static func connectionError(_ error: any Error, name: String, timeout: Duration) -> NTSKEError {
        if let error = error as? NTSKEError { return error.prefixed(name) }
        if let channel = error as? ChannelError, case .connectTimeout = channel {
            return NTSKEError(.timeout, "\(name): no connection within \(timeout.readable)", underlying: error)
        }
        return NTSKEError(.connection, "\(name): \(error)", underlying: error)
    }

    /// An error of the connection as an `NTSKEError` naming the server.
    static func keyExchangeError(_ error: any Error, name: String) -> NTSKEError {
        switch error {
        case let error as NTSKEError:
            return error.prefixed(name)
        case let error as NIOSSLError:
            let text = "\(error)"
            if text.contains("CERTIFICATE_VERIFY_FAILED") {
                return NTSKEError(.untrustedCertificate, "\(name): certificate verification failed", underlying: error)
            }
            // BoringSSL's reason, without its error stack's file names.
            let reason = text.range(of: "OPENSSL_internal:").map { text[$0.upperBound...].prefix { $0 != " " } }.map(String.init) ?? text
            return NTSKEError(.tls, "\(name): \(reason)", underlying: error)
        case let error as NIOSSLExtraError:
            return NTSKEError(.untrustedCertificate, "\(name): \(error)", underlying: error)
        default:
            return NTSKEError(.connection, "\(name): \(error)", underlying: error)
        }
    }
}

/// Sends the request once TLS is up, reads records up to End of Message, checks ALPN.
final class NTSKEClientHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let request: [UInt8]
    private let promise: EventLoopPromise<[NTSKERecord]>
    private var decoder = NTSKERecordDecoder(maximumMessageSize: NTSKeyExchange.maximumResponseSize)
    private var finished = false

    init(request: [UInt8], promise: EventLoopPromise<[NTSKERecord]>) {
        self.request = request
        self.promise = promise
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case TLSUserEvent.handshakeCompleted(let negotiated) = event {
            guard negotiated == NTSKeyExchange.applicationProtocol else {
                finish(context: context, .failure(NTSKEError(.noApplicationProtocol, "the server chose \(negotiated ?? "none")")))
                return
            }
            context.writeAndFlush(NIOAny(context.channel.allocator.buffer(bytes: request)), promise: nil)
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !finished else { return }
        let buffer = unwrapInboundIn(data)
        do {
            try decoder.append(buffer.readableBytesView)
        } catch {
            finish(context: context, .failure(error))
            return
        }
        if decoder.isComplete { finish(context: context, .success(decoder.records)) }
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish(context: context, .failure(NTSKEError(.incompleteMessage)))
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        finish(context: context, .failure(error))
    }

    private func finish(context: ChannelHandlerContext, _ result: Result<[NTSKERecord], any Error>) {
        guard !finished else { return }
        finished = true
        promise.completeWith(result)
        context.close(promise: nil)
    }
}
#endif
