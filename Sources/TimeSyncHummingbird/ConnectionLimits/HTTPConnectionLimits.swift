#if Hummingbird
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// How long an HTTP/1 server waits for requests, and how many connections it keeps: what keeps idle
/// and slow ("slowloris") clients from holding its file descriptors and memory.
///
/// - A new connection must deliver a complete request head within ``headerTimeout`` of opening.
/// - A kept-alive connection may wait ``idleTimeout`` after a response for the first byte of its
///   next request; from that byte, the head must be complete within ``headerTimeout``.
/// - While a request is being answered no timer runs.
/// - At most ``maximumConnectionsPerAddress`` connections are open from one client address (an
///   IPv6 client counts by its /64, which one host usually owns whole): one more is closed as soon
///   as it is accepted.
/// - At most ``maximumConnections`` are open in all. One more takes the place of the connection
///   that has waited longest for a request (idle, or still sending its head), which is closed;
///   when every connection is busy answering, the new one is closed as soon as it is accepted. The
///   listener keeps accepting either way, so a flood neither fills the kernel's backlog nor runs
///   the process out of file descriptors.
///
/// The defaults (``init(headerTimeout:idleTimeout:maximumConnections:maximumConnectionsPerAddress:)``)
/// suit a public `/time` endpoint: 10 s for a head (a real client sends it in one packet right after
/// connecting; nginx allows 60 s, Apache's `mod_reqtimeout` 20 s), 60 s of keep-alive (longer than
/// the time clients' 2 s burst spacing, near nginx's 75 s), 256 connections per address (room for
/// many users behind one NAT, 2.5 % of the default total) and a total below the process's
/// file-descriptor limit (``defaultMaximumConnections()``).
public struct HTTPConnectionLimits: Sendable, Hashable {
    /// How long a request head may take: from the connection's opening, or from the first byte of
    /// a kept-alive connection's next request. Default 10 s.
    public var headerTimeout: Duration
    /// How long a kept-alive connection may wait, after a response, for the next request's first
    /// byte. Default 60 s.
    public var idleTimeout: Duration
    /// The most connections open at once. Default ``defaultMaximumConnections()``.
    public var maximumConnections: Int
    /// The most connections open at once from one client address (an IPv6 client by its prefix, ``ipv6ClientPrefixLength``).
    /// Default 256.
    public var maximumConnectionsPerAddress: Int
    /// How many leading bits of an IPv6 address name one client for
    /// ``maximumConnectionsPerAddress`` (default 64: a host usually owns a whole /64), 32 to 128.
    public var ipv6ClientPrefixLength: Int = 64

    /// The shortest timeout: 1 ms.
    public static let shortestTimeout: Duration = .milliseconds(1)
    /// The longest timeout: one day.
    public static let longestTimeout: Duration = .seconds(86_400)
    /// File descriptors kept out of ``defaultMaximumConnections()`` for everything else the process
    /// opens (listening sockets, event loops, logs, an NTP server beside it): 128.
    public static let reservedFileDescriptors = 128

    /// Creates limits; timeouts are brought within ``shortestTimeout``...``longestTimeout`` and
    /// counts up to at least 1.
    /// - Parameters:
    ///   - headerTimeout: How long a request head may take (default 10 s).
    ///   - idleTimeout: How long a kept-alive connection may wait for its next request (default 60 s).
    ///   - maximumConnections: The most connections open at once; `nil` for
    ///     ``defaultMaximumConnections()``.
    ///   - maximumConnectionsPerAddress: The most from one client address (default 256).
    public init(
        headerTimeout: Duration = .seconds(10), idleTimeout: Duration = .seconds(60), maximumConnections: Int? = nil,
        maximumConnectionsPerAddress: Int = 256
    ) {
        self.headerTimeout = min(max(headerTimeout, Self.shortestTimeout), Self.longestTimeout)
        self.idleTimeout = min(max(idleTimeout, Self.shortestTimeout), Self.longestTimeout)
        self.maximumConnections = max(1, maximumConnections ?? Self.defaultMaximumConnections())
        self.maximumConnectionsPerAddress = max(1, maximumConnectionsPerAddress)
    }

    /// The default total: the process's file-descriptor limit (`RLIMIT_NOFILE`, soft) less
    /// ``reservedFileDescriptors``, at most 10,000 (a few kilobytes of memory each on the server,
    /// far more than one `/time` server needs) and at least 1.
    /// - Returns: With the common limit of 1,024, 896; with 20,000 or more, 10,000.
    public static func defaultMaximumConnections() -> Int {
        defaultMaximumConnections(fileDescriptorLimit: currentFileDescriptorLimit())
    }

    /// The default total for a given file-descriptor limit: `min(limit − 128, 10,000)`, at least 1.
    /// - Parameter fileDescriptorLimit: The process's `RLIMIT_NOFILE`; `nil` when unknown (10,000).
    /// - Returns: The default ``maximumConnections``.
    public static func defaultMaximumConnections(fileDescriptorLimit: Int?) -> Int {
        guard let limit = fileDescriptorLimit else { return 10_000 }
        return max(1, min(limit.subtractingReportingOverflow(reservedFileDescriptors).partialValue, 10_000))
    }

    /// The soft `RLIMIT_NOFILE` of this process, or `nil` when it cannot be read or is unlimited.
    static func currentFileDescriptorLimit() -> Int? {
        #if canImport(Glibc) || canImport(Musl) || canImport(Darwin)
        var limit = rlimit()
        #if canImport(Glibc)
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        #else
        let resource = RLIMIT_NOFILE
        #endif
        // RLIM_INFINITY (all bits set on Linux) and other values too large to matter mean "unlimited".
        guard getrlimit(resource, &limit) == 0, limit.rlim_cur < rlim_t(Int32.max) else { return nil }
        return Int(limit.rlim_cur)
        #else
        return nil
        #endif
    }
}
#endif
