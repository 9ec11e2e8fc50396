#if NTS
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS
import ServiceLifecycle
import TimeSync

extension NTSKEServer {
    /// The settings of a key-exchange server.
    public struct Configuration: Sendable {
        /// The address to bind (default `127.0.0.1`).
        public var host: String
        /// The TCP port (default 4460; 0 picks a free one, see ``localAddress()``).
        public var port: Int
        /// The certificate chain, leaf first, and its private key (PEM files).
        public var certificateChainFile: String
        /// The private key of the leaf certificate (PEM file).
        public var privateKeyFile: String
        /// The NTP server to name in responses, when clients should not use the key-exchange host.
        public var ntpServer: String?
        /// The NTP port to name in responses, when it is not 123.
        public var ntpPort: UInt16?
        /// How long one connection may take, from its acceptance through the TLS handshake to its
        /// request's End of Message (default 10 s); then it is closed. A client sends its request
        /// right after the handshake, two round trips after connecting.
        public var connectionTimeout: Duration
        /// The most connections open at once (default ``defaultMaximumConnections``, 100, as
        /// chrony's `maxntsconnections`): one more takes the place of the connection in its key
        /// exchange longest. At least 1.
        public var maximumConnections: Int
        /// The most connections open at once from one client address, an IPv6 client by its prefix
        /// (default ``defaultMaximumConnectionsPerAddress``, 8: a client needs one, and several
        /// behind one NAT rarely exchange keys at the same moment); one more is closed at once. At
        /// least 1.
        public var maximumConnectionsPerAddress: Int

        /// New connections per second one client address (an IPv6 client by its prefix, ``ipv6ClientPrefixLength``) may open,
        /// sustained (default 1); `.infinity` turns the limit off. One over it is closed as soon as
        /// it is accepted. A client exchanges keys once per session, hours apart; the limit keeps
        /// an address that reconnects without end from pushing others' handshakes out of
        /// ``maximumConnections``.
        public var connectionRateLimit: Double
        /// Connections a client address may open back to back before ``connectionRateLimit``
        /// applies (default 8). At least 1.
        public var connectionRateLimitBurst: Double
        /// How many leading bits of an IPv6 address name one client for the per-address caps and
        /// the connection rate (default 64: a host usually owns a whole /64), 32 to 128.
        public var ipv6ClientPrefixLength: Int = 64

        /// The default ``maximumConnections``: 100.
        public static let defaultMaximumConnections = 100
        /// The default ``maximumConnectionsPerAddress``: 8.
        public static let defaultMaximumConnectionsPerAddress = 8

        /// Creates settings.
        public init(
            host: String = "127.0.0.1", port: Int = NTSKeyExchange.defaultPort, certificateChainFile: String, privateKeyFile: String,
            ntpServer: String? = nil, ntpPort: UInt16? = nil, connectionTimeout: Duration = .seconds(10),
            maximumConnections: Int = defaultMaximumConnections, maximumConnectionsPerAddress: Int = defaultMaximumConnectionsPerAddress,
            connectionRateLimit: Double = 1, connectionRateLimitBurst: Double = 8
        ) {
            self.host = host
            self.port = port
            self.certificateChainFile = certificateChainFile
            self.privateKeyFile = privateKeyFile
            self.ntpServer = ntpServer
            self.ntpPort = ntpPort
            self.connectionTimeout = connectionTimeout
            self.maximumConnections = max(1, maximumConnections)
            self.maximumConnectionsPerAddress = max(1, maximumConnectionsPerAddress)
            self.connectionRateLimit = connectionRateLimit
            self.connectionRateLimitBurst = connectionRateLimitBurst
        }
    }

    /// What the server has done.
    public struct Statistics: Sendable, Hashable {
        /// Key exchanges answered with cookies.
        public var exchanges = 0
        /// Requests answered with an Error record or a refusal.
        public var refused = 0
        /// Connections that failed (TLS errors, timeouts, closed early, closed to make room).
        public var failed = 0
        /// Connections closed at ``Configuration/connectionTimeout`` (counted in ``failed`` too).
        public var timedOut = 0
        /// Connections closed as soon as they were accepted: over
        /// ``Configuration/maximumConnectionsPerAddress`` or ``Configuration/connectionRateLimit``,
        /// or the server full of connections being answered. Not counted in ``failed``.
        public var refusedConnections = 0
        /// Of ``refusedConnections``, those over ``Configuration/connectionRateLimit``.
        public var rateLimitedConnections = 0
        /// Connections closed in their key exchange to make room for a newer one under
        /// ``Configuration/maximumConnections`` (counted in ``failed`` too).
        public var evictedConnections = 0
        /// Connections open now.
        public var openConnections = 0
    }
}
#endif
