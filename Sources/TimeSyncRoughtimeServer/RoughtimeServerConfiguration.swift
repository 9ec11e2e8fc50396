#if RoughtimeServer
import TimeSync
import TimeSyncWire

/// What a ``RoughtimeServer`` serves and how.
public struct RoughtimeServerConfiguration: Sendable, Hashable {
    /// The address to bind (`::` or `0.0.0.0` for every interface).
    public var host: String
    /// The UDP port (0 picks a free one; 2002 is Roughtime's usual port).
    public var port: Int
    /// The most requests answered under one signature, 1 to ``maximumBatchSize``: requests read from
    /// the socket together (up to this many) are leaves of one Merkle tree whose root is signed once.
    /// 1 signs every reply alone.
    public var batchSize: Int
    /// RADI in seconds: how far the true time may be from the signed midpoint. At least 3; raise it
    /// when this host's clock is less certain than that.
    public var radius: UInt32
    /// How long an online key serves before a new one is delegated (rotation happens when a quarter
    /// of it is left). At least a minute.
    public var delegationLifetime: Duration
    /// The versions answered; a request offering none of them gets no reply.
    public var versions: [RoughtimeVersion]
    /// Sustained requests per second per client address (default 1); `.infinity` turns the limit
    /// off. A request over the limit is dropped before it is signed, without a reply (Roughtime has
    /// no Kiss-o'-Death), and counted in ``RoughtimeServerStatistics/dropped`` as
    /// `RoughtimeDropReason.rateLimited`. A client queries a server once per measurement, so one a
    /// second leaves it room; a flood from one address costs at most this many signatures' share.
    public var rateLimit: Double
    /// Requests a client address may send back to back (default 8): a client that queries a few
    /// times at once, or several clients behind one address, are answered.
    public var rateLimitBurst: Double
    /// How many leading bits of an IPv6 address name one client for the rate limit (default 64: a
    /// host usually owns a whole /64), 32 to 128.
    public var ipv6ClientPrefixLength: Int = 64

    /// The largest batch: as many requests as one read from the socket brings.
    public static let maximumBatchSize = 64

    /// A configuration with the usual choices: batches of 64, a radius of 3 s, online keys for a day,
    /// every framed version, one request a second per client address with bursts of 8.
    public init(
        host: String, port: Int, batchSize: Int = maximumBatchSize, radius: UInt32 = 3, delegationLifetime: Duration = .seconds(86_400),
        versions: [RoughtimeVersion] = RoughtimeVersion.served, rateLimit: Double = 1, rateLimitBurst: Double = 8
    ) {
        self.host = host
        self.port = port
        self.batchSize = batchSize
        self.radius = radius
        self.delegationLifetime = delegationLifetime
        self.versions = versions
        self.rateLimit = rateLimit
        self.rateLimitBurst = rateLimitBurst
    }

    /// ``batchSize`` brought into 1…``maximumBatchSize``.
    var effectiveBatchSize: Int { min(Self.maximumBatchSize, max(1, batchSize)) }
}
#endif
