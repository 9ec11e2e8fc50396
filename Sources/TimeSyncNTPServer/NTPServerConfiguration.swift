#if NTPServer
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Logging
import Metrics
import NIOCore
import NIOPosix
import ServiceLifecycle
import TimeSync
import TimeSyncWire
import TimeSyncServerSupport

/// The settings of an ``NTPServer``.
public struct NTPServerConfiguration: Sendable, Hashable {
    /// What to do with a request over the client's rate limit.
    public enum OverLimitAction: Sendable, Hashable {
        /// Answer the first over-limit request of a client, and then one in
        /// ``NTPServerConfiguration/rateLimitKissEvery``, with a Kiss-o'-Death `RATE`; drop the rest.
        case kissOfDeath
        /// Drop them all silently.
        case drop
    }

    /// Where the leap indicator, stratum and root dispersion replies advertise come from.
    public enum PolicySource: Sendable, Hashable {
        /// The host's kernel clock discipline (``SystemKernelClock``, or the ``KernelClock`` given to
        /// ``NTPServer/init(configuration:timeBase:kernelClock:authenticator:group:logger:metricsFactory:)``), read
        /// at most once a second per socket and mapped by `NTPClockState.serverPolicy(synchronized:localStratum:)`:
        /// an unsynchronized host answers leap indicator 3, stratum 16, unless ``localStratum`` is set.
        case kernel
        /// ``policy`` exactly as given, whatever the host's state: for a time base that is not this
        /// host's clock (a simulation, a calibrated `ServerClock`), whose quality the caller knows.
        case fixed
    }

    /// How the sockets read and write datagrams.
    public enum DatagramIO: Sendable, Hashable {
        /// Linux: up to 64 datagrams per system call each way (`recvmmsg`, `sendmmsg`), on a thread
        /// per socket, into buffers allocated once; receive timestamps from the kernel when
        /// ``NTPServerConfiguration/kernelTimestamps`` is on. Elsewhere it is ``swiftNIO``.
        case batched
        /// SwiftNIO's datagram channels, on every platform.
        case swiftNIO

        /// ``batched`` on Linux, ``swiftNIO`` elsewhere.
        public static var platformDefault: DatagramIO {
            #if os(Linux)
            .batched
            #else
            .swiftNIO
            #endif
        }
    }

    /// The address to bind (default `127.0.0.1`; `::` or `0.0.0.0` for every interface).
    public var host: String
    /// The UDP port (default 123; 0 picks a free one, see ``NTPServer/localAddress()``).
    public var port: Int
    /// What replies advertise while the host's clock is synchronized: stratum, reference identifier,
    /// precision and root delay, and a floor under the root dispersion (the kernel's maximum error
    /// otherwise). Default ``defaultPolicy``: stratum 2, reference `LOCL`. The kernel knows neither
    /// the stratum nor the address of the daemon's upstream: set the stratum to the upstream's plus
    /// one (`chronyc tracking` shows this host's). With ``PolicySource/fixed`` it is advertised as is.
    public var policy: NTPServerPolicy
    /// The stratum (1–15) at which to serve the clock while the host is *not* synchronized, like
    /// chrony's `local stratum`: the operator vouches for the clock (reference `LOCL`, root dispersion
    /// `NTPClockState.localRootDispersion`). `nil` (the default) answers the truth instead — leap
    /// indicator 3, stratum 16 — which clients do not use.
    public var localStratum: UInt8?
    /// Where the advertised clock quality comes from (default: the kernel).
    public var policySource: PolicySource
    /// Sustained requests per second per client address (default 1); `.infinity` turns the limit off.
    public var rateLimit: Double
    /// Requests a client address may send back to back (default 8: an `iburst` and then some).
    public var rateLimitBurst: Double
    /// How many leading bits of an IPv6 address name one client for the rate limit (default 64: a
    /// host usually owns a whole /64), 32 to 128.
    public var ipv6ClientPrefixLength: Int = 64
    /// What happens over the limit (default: Kiss-o'-Death `RATE`, for some).
    public var overLimitAction: OverLimitAction
    /// With ``OverLimitAction/kissOfDeath``, one over-limit request in this many is kissed (default
    /// 16), the rest dropped: a flood gets back one 48-byte kiss per 16 requests, and each kiss
    /// asks for the interval the limit allows. 1 kisses every one.
    public var rateLimitKissEvery: Int
    /// Sockets serving the port, each on its own event loop (default 1). Above 1 they share the port
    /// with `SO_REUSEPORT`: the kernel spreads clients over them by address and port, so the server
    /// uses that many cores (chronyd answers on one). The rate limit stays one per client address,
    /// shared by all of them.
    public var threads: Int
    /// How datagrams are read and written (default: ``DatagramIO/platformDefault``).
    public var datagramIO: DatagramIO
    /// With ``DatagramIO/batched``: take each request's receive timestamp from the kernel
    /// (`SO_TIMESTAMPNS`, the moment the datagram reached the socket), so time a request waits in
    /// the socket's queue under load does not count as the client's network delay. Default on.
    public var kernelTimestamps: Bool
    /// With ``DatagramIO/batched`` and kernel timestamps, under load: how long a socket's thread
    /// lets an emptied queue fill before it waits for the next datagram (default 100 µs; zero
    /// never). Larger batches share the costs of reading, sending and waking up; each request
    /// waits at most this much longer, between its receive and transmit timestamps, which clients
    /// leave out of the network delay.
    public var coalescingInterval: Duration = .microseconds(100)

    /// The cores this process may run on (its CPU affinity and cgroup quota counted): a ``threads``
    /// value that uses them all.
    public static var availableCores: Int { System.coreCount }

    /// What a synchronized host advertises by default: stratum 2 (one hop below a reference clock,
    /// the least a host disciplined over the network can be), reference `LOCL` (this host's own
    /// clock, whose upstream the server does not know), precision 2⁻²⁰ s, no root delay.
    public static let defaultPolicy = NTPServerPolicy(stratum: 2, referenceID: .local)

    /// Creates a configuration.
    public init(
        host: String = "127.0.0.1", port: Int = 123, policy: NTPServerPolicy = defaultPolicy,
        localStratum: UInt8? = nil, policySource: PolicySource = .kernel, rateLimit: Double = 1,
        rateLimitBurst: Double = 8, overLimitAction: OverLimitAction = .kissOfDeath, rateLimitKissEvery: Int = 16,
        threads: Int = 1, datagramIO: DatagramIO = .platformDefault, kernelTimestamps: Bool = true
    ) {
        self.host = host
        self.port = port
        self.policy = policy
        self.localStratum = localStratum
        self.policySource = policySource
        self.rateLimit = rateLimit
        self.rateLimitBurst = rateLimitBurst
        self.overLimitAction = overLimitAction
        self.rateLimitKissEvery = max(1, rateLimitKissEvery)
        self.threads = max(1, threads)
        self.datagramIO = datagramIO
        self.kernelTimestamps = kernelTimestamps
    }

    /// What replies advertise when the host's clock is in `clockState` (`nil`: it could not be read,
    /// taken as `NTPClockState.unknown`).
    public func advertisedPolicy(clockState: NTPClockState?) -> NTPServerPolicy {
        switch policySource {
        case .fixed: policy
        case .kernel: (clockState ?? .unknown).serverPolicy(synchronized: policy, localStratum: localStratum)
        }
    }
}
#endif
