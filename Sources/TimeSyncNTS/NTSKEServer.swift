#if NTS
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS
import ServiceLifecycle
import TimeSync
import TimeSyncWire
import TimeSyncServerSupport

/// An NTS key-exchange server (RFC 8915 §4): TLS 1.3 with ALPN `ntske/1`; to a request for NTPv4 with
/// AES-SIV-CMAC-256 it answers with eight cookies sealed by ``NTSServerKeys`` and, when configured,
/// the NTP server and port to use. It keeps no state per client; any NTP server holding the master
/// keys answers the requests those cookies make.
///
/// A ServiceLifecycle `Service`: ``run()`` binds, serves until graceful shutdown or cancellation, then
/// closes. Each connection has ``Configuration/connectionTimeout`` to finish; a request over 1 KiB, a
/// malformed record stream or a critical record of an unknown type gets an Error record and the
/// connection is closed.
///
/// Connections are capped, so that idle or slow clients cannot hold the server's file descriptors
/// or keep others waiting:
/// - One client address (an IPv6 client by its /64) may open ``Configuration/connectionRateLimit``
///   connections a second, in bursts of ``Configuration/connectionRateLimitBurst``, like chrony's
///   `ntsratelimit`; and at most ``Configuration/maximumConnectionsPerAddress`` are open from it at
///   once. A connection beyond either is closed as soon as it is accepted, before its TLS handshake
///   costs anything.
/// - At most ``Configuration/maximumConnections`` are open in all. One more takes the place of the
///   connection that has been in its key exchange longest, which is closed; when every connection
///   is being answered, the new one is closed as soon as it is accepted. The listener keeps
///   accepting either way, so idle connections neither fill the kernel's backlog nor run the
///   process out of file descriptors, and a client that completes its exchange promptly is served.
/// - A connection that has not sent its whole request within ``Configuration/connectionTimeout``
///   of being accepted is closed.
public final class NTSKEServer: Service, Sendable {
    /// The settings.
    public let configuration: Configuration
    /// The master keys cookies are sealed with.
    public let keys: NTSServerKeys
    private let certificates: [NIOSSLCertificate]
    private let privateKey: NIOSSLPrivateKey
    private let group: any EventLoopGroup
    private let logger: Logger
    private let counters = NIOLockedValueBox(Statistics())
    private let connections: NIOLockedValueBox<NTSKEConnectionTable<any Channel>>
    /// New connections per client address; `nil` without a limit.
    private let connectionLimiter: NIOLockedValueBox<NTPRateLimiter<NTPRateLimitKey>>?
    private let timeBase: any TimeBase
    private let binding = BindingWaiter()

    /// Creates a server; nothing is bound until ``run()``.
    /// - Parameters:
    ///   - configuration: Address, certificate, what responses name, limits.
    ///   - keys: The master keys cookies are sealed with.
    ///   - group: The event loops (default: NIO's shared singleton).
    ///   - logger: The logger (default: discards everything).
    ///   - timeBase: The monotonic clock ``Configuration/connectionRateLimit`` is measured on.
    /// - Throws: ``NTSKeyFileError`` when the certificate chain or private key cannot be loaded.
    public init(
        configuration: Configuration, keys: NTSServerKeys, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: Logger = Logger(label: "timesync.nts-ke", factory: { _ in SwiftLogNoOpLogHandler() }), timeBase: (any TimeBase)? = nil
    ) throws {
        let timeBase = timeBase ?? SystemTimeBase()
        self.configuration = configuration
        self.timeBase = timeBase
        connectionLimiter =
            configuration.connectionRateLimit == .infinity
            ? nil
            : NIOLockedValueBox(
                NTPRateLimiter(
                    rate: configuration.connectionRateLimit, burst: configuration.connectionRateLimitBurst, capacity: 10_000, kissEvery: 0,
                    seed: .random(in: .min ... .max)))
        self.keys = keys
        self.group = group
        self.logger = logger
        connections = NIOLockedValueBox(
            NTSKEConnectionTable(
                maximumConnections: configuration.maximumConnections, maximumConnectionsPerAddress: configuration.maximumConnectionsPerAddress))
        do {
            certificates = try NIOSSLCertificate.fromPEMFile(configuration.certificateChainFile)
        } catch {
            throw NTSKeyFileError(
                .invalidCertificate, "\(configuration.certificateChainFile): not a PEM certificate chain (\(error))", underlying: error)
        }
        guard !certificates.isEmpty else { throw NTSKeyFileError(.invalidCertificate, "\(configuration.certificateChainFile): no certificate") }
        do {
            privateKey = try NIOSSLPrivateKey(file: configuration.privateKeyFile, format: .pem)
        } catch {
            throw NTSKeyFileError(
                .invalidCertificate, "\(configuration.privateKeyFile): not a PEM private key (\(error))", underlying: error)
        }
    }

    /// The bound address, once ``run()`` has bound (waits until then).
    public func localAddress() async throws -> SocketAddress {
        try await binding.wait()
    }

    /// The counts so far.
    public var statistics: Statistics {
        var statistics = counters.withLockedValue { $0 }
        statistics.openConnections = connections.withLockedValue { $0.count }
        return statistics
    }

    /// Binds and serves until graceful shutdown or cancellation.
    public func run() async throws {
        let channel: any Channel
        do {
            channel = try await ServerBootstrap(group: group)
                .serverChannelOption(.backlog, value: 256)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { [self] child in
                    child.eventLoop.makeCompletedFuture { try self.initialize(child) }
                }
                .bind(host: configuration.host, port: configuration.port).get()
        } catch {
            throw binding.bindFailed(error, transport: "TCP", host: configuration.host, port: configuration.port)
        }
        let address = channel.localAddress!
        binding.succeed(address)
        logger.info(
            "NTS-KE server listening",
            metadata: [
                "address": .string("\(address)"), "timeout": .string("\(configuration.connectionTimeout)"),
                "maximumConnections": .stringConvertible(configuration.maximumConnections),
                "maximumConnectionsPerAddress": .stringConvertible(configuration.maximumConnectionsPerAddress),
                "rateLimit": .string(
                    configuration.connectionRateLimit == .infinity
                        ? "off" : "\(configuration.connectionRateLimit)/s, burst \(configuration.connectionRateLimitBurst)"),
            ])
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                try? await channel.closeFuture.get()
            } onGracefulShutdown: {
                channel.close(promise: nil)
            }
        } onCancel: {
            channel.close(promise: nil)
        }
        logger.info("NTS-KE server stopped")
    }

    /// One connection's pipeline: TLS (a context of its own, so its key log holds its secret alone),
    /// then the record handler; or, over a cap, the connection closed before it is registered.
    /// - Throws: ``ConnectionRefused`` for a connection over a cap (already closing).
    func initialize(_ channel: any Channel) throws {
        guard let id = admit(channel) else {
            // Closed before its TLS handshake: a refusal costs an accept and a close.
            channel.close(promise: nil)
            throw ConnectionRefused()
        }
        channel.closeFuture.whenComplete { [connections] _ in connections.withLockedValue { $0.remove(id) } }
        let secret = NIOLockedValueBox<[UInt8]?>(nil)
        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: certificates.map { .certificate($0) }, privateKey: .privateKey(privateKey))
        tls.minimumTLSVersion = .tlsv13
        tls.applicationProtocols = [NTSKeyExchange.applicationProtocol]
        tls.keyLogCallback = TLSExporter.keyLog(into: secret)
        let context = try NIOSSLContext(configuration: tls)
        try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
        try channel.pipeline.syncOperations.addHandler(
            NTSKEServerHandler(server: self, secret: secret, timeout: configuration.connectionTimeout, connection: id))
    }

    /// A connection closed as soon as it was accepted, over a cap.
    struct ConnectionRefused: Error {}

    /// Counts a new connection against the caps, closing the one in its key exchange longest when
    /// the server is full.
    /// - Returns: Its ID among the open connections, or `nil` when it must be closed at once.
    private func admit(_ channel: any Channel) -> NTSKEConnectionTable<any Channel>.ID? {
        let address = channel.remoteAddress?.withSockAddr { NTSKEClientAddress(sockaddr: $0, length: $1, ipv6PrefixLength: configuration.ipv6ClientPrefixLength) }
        if let connectionLimiter, let address {
            let now = timeBase.monotonicNow()
            guard case .admit = connectionLimiter.withLockedValue({ $0.decide(NTPRateLimitKey(address), at: now) }) else {
                counters.withLockedValue {
                    $0.refusedConnections += 1
                    $0.rateLimitedConnections += 1
                }
                logger.debug(
                    "NTS-KE connection refused: over its address's rate limit",
                    metadata: ["client": .string("\(channel.remoteAddress?.description ?? "?")")])
                return nil
            }
        }
        let admission = connections.withLockedValue { $0.admit(channel, from: address) }
        switch admission {
        case .admitted(let id):
            return id
        case .admittedClosing(let id, let oldest):
            counters.withLockedValue { $0.evictedConnections += 1 }
            logger.debug("NTS-KE connection closed to make room", metadata: ["client": .string("\(oldest.remoteAddress?.description ?? "?")")])
            oldest.close(promise: nil)
            return id
        case .overAddressLimit, .full:
            counters.withLockedValue { $0.refusedConnections += 1 }
            logger.debug(
                "NTS-KE connection refused: over the connection limits", metadata: ["client": .string("\(channel.remoteAddress?.description ?? "?")")])
            return nil
        }
    }

    /// The connection's request is read: it is answered now, no longer closed to make room.
    func connectionAnswering(_ id: NTSKEConnectionTable<any Channel>.ID) {
        connections.withLockedValue { $0.setClosable(id, false) }
    }

    func connectionTimedOut() {
        counters.withLockedValue { $0.timedOut += 1 }
        connectionFailed(NTSKEError(.timeout))
    }

    /// The records answering a request whose TLS session exported `exporterSecret`.
    func respond(to records: [NTSKERecord], exporterSecret: [UInt8]?) -> [NTSKERecord] {
        let request: NTSKERequest
        do {
            request = try NTSKERequest(records: records)
        } catch {
            return refusal(error)
        }
        if let refusal = NTSKEResponse.refusal(of: request) {
            counters.withLockedValue { $0.refused += 1 }
            return refusal
        }
        guard let exporterSecret else {
            counters.withLockedValue { $0.failed += 1 }
            return [.error(.internalServerError), .endOfMessage]
        }
        do {
            try keys.rotateIfDue()
        } catch {
            logger.error("NTS master keys not rotated: \(error)")
        }
        let derived = TLSExporter.keys(
            exporterSecret: exporterSecret, algorithm: NTSAEADAlgorithm.aesSIVCMAC256, length: NTSAEADAlgorithm.aesSIVCMAC256KeyLength)
        let cookies = (0..<NTSKEResponse.maximumCookies).map { _ in
            keys.makeCookie(clientToServer: derived.clientToServer, serverToClient: derived.serverToClient)
        }
        counters.withLockedValue { $0.exchanges += 1 }
        return NTSKEResponse(
            algorithm: NTSAEADAlgorithm.aesSIVCMAC256, cookies: cookies, server: configuration.ntpServer, port: configuration.ntpPort
        ).records
    }

    /// The Error record answering a request that does not parse (counted as refused).
    func refusal(_ error: NTSKEError) -> [NTSKERecord] {
        counters.withLockedValue { $0.refused += 1 }
        logger.debug("NTS-KE request refused", metadata: ["error": .string("\(error)")])
        return [.error(error.errorCode), .endOfMessage]
    }

    func connectionFailed(_ error: any Error) {
        counters.withLockedValue { $0.failed += 1 }
        logger.debug("NTS-KE connection failed", metadata: ["error": .string("\(error)")])
    }
}
#endif
