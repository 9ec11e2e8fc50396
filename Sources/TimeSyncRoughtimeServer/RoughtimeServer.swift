#if RoughtimeServer
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Crypto
import Foundation
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import TimeSync
import TimeSyncWire
import TimeSyncServerSupport

/// A Roughtime server over UDP (RFC 10049 and the drafts in use): signed time, answered in batches.
///
/// The long-term key signs only delegations: an online key, valid for
/// ``RoughtimeServerConfiguration/delegationLifetime``, signs the replies, and a new one is delegated
/// before its window ends (checked before every batch, so no reply goes out under an expired key and
/// no timer is needed). Requests read from the socket together, up to
/// ``RoughtimeServerConfiguration/batchSize``, are answered under one signature over the Merkle
/// tree of their leaves; the socket reads up to 64 datagrams per system call (`recvmmsg`) and sends a
/// burst's replies together (`sendmmsg`).
///
/// Requests shorter than 1024 bytes, offering no version served, naming another server's key, or
/// malformed are dropped without a word, as the protocol asks; no reply is larger than its request.
/// Each client address may send ``RoughtimeServerConfiguration/rateLimit`` requests a second (bursts
/// of ``RoughtimeServerConfiguration/rateLimitBurst``); what it sends beyond is dropped as it is
/// read, before any signing, so a flood from a few addresses cannot spend the server's CPU on
/// signatures or crowd out other clients.
///
/// A ServiceLifecycle `Service`: ``run()`` binds, serves until graceful shutdown (SIGINT/SIGTERM in a
/// `ServiceGroup`) or cancellation, then closes the socket.
public final class RoughtimeServer: Service, Sendable {
    /// The configuration.
    public let configuration: RoughtimeServerConfiguration
    /// The long-term public key clients pin.
    public let publicKey: [UInt8]
    private let timeBase: any TimeBase
    private let logger: Logger
    private let state: NIOLoopBoundBox<RoughtimeServerState>
    private let binding = BindingWaiter()

    /// Creates a server and delegates its first online key; nothing is bound until ``run()``.
    /// - Parameters:
    ///   - configuration: Address, batch size, radius, online-key lifetime, versions.
    ///   - longTermKey: The server's long-term private key.
    ///   - timeBase: The clock replies are stamped from (its wall clock).
    ///   - group: The event loops (default: NIO's shared singleton); the socket takes the next one.
    ///   - logger: The logger (default: discards everything).
    /// - Throws: `RoughtimeError` (`badKey`) when the configuration serves no version this library
    ///   answers; a signing error from the key.
    public init(
        configuration: RoughtimeServerConfiguration, longTermKey: Curve25519.Signing.PrivateKey, timeBase: (any TimeBase)? = nil,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton, logger: Logger = .roughtimeNoOp
    ) throws {
        let timeBase = timeBase ?? SystemTimeBase()
        let responder = try RoughtimeResponder(
            longTermKey: longTermKey, validity: RoughtimeResponder.window(now: timeBase.wallNow(), lifetime: configuration.delegationLifetime),
            radius: configuration.radius, versions: configuration.versions)
        guard !responder.versions.isEmpty else {
            throw RoughtimeError(.unsupportedVersion, "the server is configured with no version it can answer (Google's protocol is not served)")
        }
        self.configuration = configuration
        self.publicKey = responder.publicKey
        self.timeBase = timeBase
        self.logger = logger
        self.state = .makeBoxSendingValue(
            RoughtimeServerState(
                responder: responder, lifetime: configuration.delegationLifetime,
                limiter: AddressRateLimiter(
                    rate: configuration.rateLimit, burst: configuration.rateLimitBurst, kissEvery: 0,
                    ipv6PrefixLength: configuration.ipv6ClientPrefixLength)),
            eventLoop: group.next())
    }

    /// Binds the socket and serves until graceful shutdown or cancellation.
    /// - Throws: `ServerBindError` when the address cannot be bound (in use, not local, no
    ///   permission); other bind errors as they are.
    public func run() async throws {
        let channel: any Channel
        do {
            channel = try await bind()
        } catch {
            throw binding.bindFailed(error, transport: "UDP", host: configuration.host, port: configuration.port)
        }
        let address = channel.localAddress!
        binding.succeed(address)
        let validity = try await state.eventLoop.submit { [state] in state.value.responder.delegation.validity }.get()
        logger.info(
            "Roughtime server listening",
            metadata: [
                "address": .string("\(address.endpoint)"), "publicKey": .string(publicKeyBase64),
                "batch": .stringConvertible(configuration.effectiveBatchSize), "radius": .string("\(configuration.radius) s"),
                "versions": .string(configuration.versions.map(\.description).joined(separator: ",")),
                "rateLimit": .string(configuration.rateLimit == .infinity ? "off" : "\(configuration.rateLimit)/s, burst \(configuration.rateLimitBurst)"),
                "onlineKeyValid": .string("\(validity.lowerBound)...\(validity.upperBound)"),
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
        logger.info("Roughtime server stopped", metadata: ["address": .string("\(address.endpoint)")])
    }

    private func bind() async throws -> any Channel {
        let state = self.state
        let timeBase = self.timeBase
        let logger = self.logger
        let batchSize = configuration.effectiveBatchSize
        return try await DatagramBootstrap(group: state.eventLoop)
            // Up to 64 datagrams per system call (recvmmsg): a read is a batch; the replies of a
            // read burst go out together on the flush at its end (sendmmsg).
            .channelOption(.datagramVectorReadMessageCount, value: RoughtimeServerConfiguration.maximumBatchSize)
            .channelOption(.maxMessagesPerRead, value: 4)
            // 2048 bytes a datagram: a request longer than that arrives cut, its framing no longer
            // matches, and it is dropped as malformed.
            .channelOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: RoughtimeServerConfiguration.maximumBatchSize * 2048))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        RoughtimeServerHandler(state: state, timeBase: timeBase, batchSize: batchSize, logger: logger))
                }
            }
            .bind(host: configuration.host, port: configuration.port).get()
    }

    /// The bound address, once ``run()`` has bound the socket (waits until then).
    /// - Throws: The bind error if binding failed.
    public func localAddress() async throws -> SocketAddress {
        try await binding.wait()
    }

    /// The counters so far.
    public func statistics() async throws -> RoughtimeServerStatistics {
        try await state.eventLoop.submit { [state] in state.value.statistics }.get()
    }

    /// The long-term public key in base64, as clients write it in `roughtime://…?key=`.
    public var publicKeyBase64: String { Data(publicKey).base64EncodedString() }
}

extension Logger {
    /// The default logger of the Roughtime server: discards everything. Pass your own to see its logs.
    @usableFromInline static let roughtimeNoOp = Logger(label: "timesync.roughtime", factory: { _ in SwiftLogNoOpLogHandler() })
}
#endif
