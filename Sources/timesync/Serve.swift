#if CLI
import ArgumentParser
import Foundation
import Logging
import ServiceLifecycle
import TimeSyncHummingbird
import TimeSyncNTPServer
import TimeSyncNTS
import TimeSyncRoughtimeServer

/// `timesync serve`: an SNTP server and/or an HTTP `/time` endpoint with the timestamp middleware, in
/// one process, until SIGINT or SIGTERM.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Serve time: SNTP (--ntp HOST:PORT), NTS (--nts-ke HOST:PORT), Roughtime (--roughtime HOST:PORT) and/or HTTP /time with the timestamp header (--http HOST:PORT).",
        discussion: """
            NTS (RFC 8915): --nts-ke HOST:PORT --cert FILE --key FILE serves key exchanges over TLS 1.3, and the \
            --ntp server answers NTS requests authenticated. The master keys that seal the cookies are rotated \
            every --nts-key-rotation seconds (the three newest are accepted). With --nts-key-dir DIR they are \
            kept in DIR/ntskeys, which NTP servers on other hosts read to answer the same clients: run \
            'serve --ntp HOST:PORT --nts-key-dir DIR' there (no --nts-ke), and name one of them to clients \
            with --nts-ntp-server HOST:PORT on the key-exchange server. A key-exchange connection must \
            send its request within --nts-ke-timeout seconds; at most --nts-ke-max-connections are open, \
            --nts-ke-max-connections-per-address from one address, which may open --nts-ke-rate-limit a \
            second (bursts of --nts-ke-rate-limit-burst).

            Roughtime (RFC 10049): --roughtime HOST:PORT --key FILE serves signed time under the long-term \
            key in FILE ('timesync roughtime keygen --out FILE' makes one; with --nts-ke, name it \
            --roughtime-key FILE). An online key, delegated for --roughtime-key-lifetime seconds and renewed \
            before it ends, signs the replies; requests read together (up to --roughtime-batch) share one \
            signature. Each client address may send --roughtime-rate-limit requests a second (bursts of \
            --roughtime-rate-limit-burst); more are dropped unanswered before they are signed.
            """)

    @Option(help: "Serve SNTP on this UDP address, e.g. 127.0.0.1:12300 or [::1]:123.")
    var ntp: String?

    @Option(help: "Serve HTTP /time and the timestamp header on this TCP address, e.g. 127.0.0.1:8080.")
    var http: String?

    @Option(help: "SNTP: sustained requests per second per client address before Kiss-o'-Death RATE, or 'off'.")
    var rateLimit: String = "1"

    @Option(parsing: .unconditional, help: "SNTP: sockets sharing the port, each answering on its own core (default: one per core).")
    var threads: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "SNTP: serve this host's clock at stratum N (1-15) while it is not synchronized, like chrony's 'local stratum'.",
        discussion: """
            Replies tell the truth about this host's clock, read from the kernel (adjtimex): while a daemon \
            (chronyd, ntpd, systemd-timesyncd) keeps it synchronized, stratum 2 and the kernel's maximum error \
            as root dispersion; while it is not, leap indicator 3 and stratum 16, which clients do not use. \
            With --local-stratum N the operator vouches for the unsynchronized clock instead: stratum N, \
            reference LOCL, root dispersion 10 ms. Pick N high enough (chrony suggests 10) that clients \
            prefer any truly synchronized server.
            """,
        valueName: "N"))
    var localStratum: UInt8?

    @Option(help: ArgumentHelp(
        "SNTP: how sockets read and write datagrams: 'batched' (Linux: recvmmsg/sendmmsg on a thread per socket, kernel receive timestamps) or 'swiftnio'.",
        valueName: "IO"))
    var ntpIo: String = NTPServerConfiguration.DatagramIO.platformDefault == .batched ? "batched" : "swiftnio"

    @Flag(help: "SNTP, batched: take receive timestamps when the request is read, not from the kernel (SO_TIMESTAMPNS).")
    var noKernelTimestamps = false

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "SNTP, batched: under load, microseconds a socket lets an emptied queue fill before waiting for the next datagram (0 to 10000; 0: never).",
        discussion: "Larger batches cost less CPU per request; each request waits at most this much longer, between its receive and transmit timestamps, which clients leave out of the network delay.",
        valueName: "MICROSECONDS"))
    var ntpCoalesce: Int = 100

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "HTTP: seconds a request head may take, from the connection's opening or a next request's first byte.",
        valueName: "SECONDS"))
    var httpHeaderTimeout: Double = 10

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "HTTP: seconds a kept-alive connection may wait for its next request.", valueName: "SECONDS"))
    var httpIdleTimeout: Double = 60

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "HTTP: the most connections open at once (default: the open-file limit less 128, at most 10000).",
        discussion: """
            One more takes the place of the connection that has waited longest for a request, or is \
            closed at once when every connection is answering one.
            """,
        valueName: "N"))
    var httpMaxConnections: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "HTTP: the most connections open at once from one client address (IPv6: one prefix, --ipv6-client-prefix); more are closed at once.",
        valueName: "N"))
    var httpMaxConnectionsPerAddress: Int = 256

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Every server: how many leading bits of an IPv6 address name one client for rate limits and connection caps (32-128).",
        discussion: "A host usually owns a whole /64: counted by single addresses it would have 2^64 shares.",
        valueName: "BITS"))
    var ipv6ClientPrefix: Int = 64

    @Option(parsing: .singleValue, help: ArgumentHelp(
        "HTTP: let web pages from this origin read the time headers (CORS), e.g. https://shop.example; repeat it for several, or give '*' for any.",
        valueName: "ORIGIN"))
    var httpCorsOrigin: [String] = []

    @Option(help: "NTS: serve key exchanges (TLS 1.3, ALPN ntske/1) on this TCP address, e.g. 0.0.0.0:4460; needs --cert and --key.")
    var ntsKe: String?

    @Option(help: "NTS: the PEM certificate chain of the key-exchange server, leaf first.")
    var cert: String?

    @Option(help: "NTS: the PEM private key of --cert's leaf certificate.")
    var key: String?

    @Option(help: "NTS: keep the master keys in DIR/ntskeys (mode 0600), shared with the fleet's NTP servers; without --nts-ke, answer NTS with the keys found there.")
    var ntsKeyDir: String?

    @Option(help: "NTS: the NTP server (HOST:PORT) key exchanges tell clients to use (default: this process's --ntp port, on the key-exchange host).")
    var ntsNtpServer: String?

    @Option(parsing: .unconditional, help: "NTS: seconds between rotations of the master key (60 to 31536000).")
    var ntsKeyRotation: Double = 86_400

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "NTS: seconds a key-exchange connection may take, from its acceptance to its whole request, before it is closed.",
        valueName: "SECONDS"))
    var ntsKeTimeout: Double = 10

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "NTS: the most key-exchange connections open at once (like chrony's maxntsconnections).",
        discussion: "One more takes the place of the connection in its key exchange longest, or is closed at once when every connection is being answered.",
        valueName: "N"))
    var ntsKeMaxConnections: Int = NTSKEServer.Configuration.defaultMaximumConnections

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "NTS: the most key-exchange connections open at once from one client address (IPv6: one /64); more are closed at once.",
        valueName: "N"))
    var ntsKeMaxConnectionsPerAddress: Int = NTSKEServer.Configuration.defaultMaximumConnectionsPerAddress

    @Option(help: "NTS: sustained new key-exchange connections per second per client address (IPv6: one /64), or 'off'; more are closed at once (like chrony's ntsratelimit).")
    var ntsKeRateLimit: String = "1"

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "NTS: key-exchange connections a client address may open back to back before --nts-ke-rate-limit applies (1 to 10000).", valueName: "N"))
    var ntsKeRateLimitBurst: Int = 8

    @Option(help: "Roughtime: serve signed time on this UDP address, e.g. 0.0.0.0:2002; needs a long-term key (--key FILE).")
    var roughtime: String?

    @Option(help: "Roughtime: the long-term private key file (base64 of 32 bytes, from 'timesync roughtime keygen'); --key names it too when there is no --nts-ke.")
    var roughtimeKey: String?

    @Option(parsing: .unconditional, help: "Roughtime: the most requests answered under one signature (1 to 64; 1 signs each reply alone).")
    var roughtimeBatch: Int = RoughtimeServerConfiguration.maximumBatchSize

    @Option(parsing: .unconditional, help: "Roughtime: RADI, the seconds the true time may lie from the signed midpoint (3 to 86400).")
    var roughtimeRadius: UInt32 = 3

    @Option(parsing: .unconditional, help: "Roughtime: seconds an online key signs before a new one is delegated (60 to 31536000).")
    var roughtimeKeyLifetime: Double = 86_400

    @Option(help: "Roughtime: the versions answered, comma-separated (default: 1,0x8000000c,0x8000000b,0x80000008).")
    var roughtimeVersions: String?

    @Option(help: "Roughtime: sustained requests per second per client address, or 'off'; more are dropped before signing, unanswered.")
    var roughtimeRateLimit: String = "1"

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Roughtime: requests a client address may send back to back before --roughtime-rate-limit applies (1 to 10000).", valueName: "N"))
    var roughtimeRateLimitBurst: Int = 8

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: String = "info"

    func run() async throws {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = Logger.Level(rawValue: logLevel) ?? .info
            return handler
        }
        let logger = Logger(label: "timesync.serve")
        var services: [any Service] = []
        do {
            let keys = try ntsKeys()
            if let ntp, let address = parseHTTPAddress(ntp) {
                services.append(try makeNTPServerService(
                    host: address.host, port: address.port, rateLimit: parsedRateLimit, threads: threads,
                    localStratum: localStratum, datagramIO: parsedNTPIO ?? .platformDefault, kernelTimestamps: !noKernelTimestamps,
                    coalescingInterval: .microseconds(ntpCoalesce), ipv6ClientPrefixLength: ipv6ClientPrefix,
                    authenticator: keys, logger: logger))
            }
            if let keys, let ntsKe, let address = parseHTTPAddress(ntsKe), let cert, let key {
                var ntpServer: String?
                var ntpPort: UInt16?
                if let ntsNtpServer, let named = parseHTTPAddress(ntsNtpServer) {
                    ntpServer = named.host
                    ntpPort = named.port == 123 ? nil : UInt16(named.port)
                } else if let ntp, let local = parseHTTPAddress(ntp), local.port != 123 {
                    // Port 0 is known once bound: the key-exchange server is told then.
                    ntpPort = local.port == 0 ? nil : UInt16(local.port)
                }
                var configuration = NTSKEServer.Configuration(
                    host: address.host, port: address.port, certificateChainFile: cert, privateKeyFile: key, ntpServer: ntpServer,
                    ntpPort: ntpPort, connectionTimeout: .seconds(ntsKeTimeout), maximumConnections: ntsKeMaxConnections,
                    maximumConnectionsPerAddress: ntsKeMaxConnectionsPerAddress,
                    connectionRateLimit: Self.parseRateLimit(ntsKeRateLimit) ?? 1, connectionRateLimitBurst: Double(ntsKeRateLimitBurst))
                configuration.ipv6ClientPrefixLength = ipv6ClientPrefix
                services.append(try NTSKEServer(configuration: configuration, keys: keys, logger: logger))
            }
        } catch {
            throw CommandFailure.from(error)
        }
        if let roughtime, let address = parseHTTPAddress(roughtime), let keyFile = roughtimeKeyFile {
            services.append(
                try makeRoughtimeServerService(
                    host: address.host, port: address.port, keyFile: keyFile, batchSize: roughtimeBatch, radius: roughtimeRadius,
                    keyLifetime: roughtimeKeyLifetime, versions: try parsedRoughtimeVersions(),
                    rateLimit: Self.parseRateLimit(roughtimeRateLimit) ?? 1, rateLimitBurst: roughtimeRateLimitBurst,
                    ipv6ClientPrefixLength: ipv6ClientPrefix, logger: logger))
        }
        if let http, let address = parseHTTPAddress(http) {
            services.append(
                try makeHTTPServerService(host: address.host, port: address.port, limits: httpLimits, cors: try Self.cors(httpCorsOrigin), logger: logger))
        }
        let group = ServiceGroup(
            configuration: .init(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        do {
            try await group.run()
        } catch {
            throw CommandFailure.from(error)
        }
    }
}
#endif
