import ArgumentParser
import Foundation
import Logging
import ServiceLifecycle

/// `timesync serve`: an SNTP server and/or an HTTP `/time` endpoint with the timestamp middleware, in
/// one process, until SIGINT or SIGTERM.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve time: SNTP (--ntp HOST:PORT) and/or HTTP /time with the timestamp header (--http HOST:PORT).")

    @Option(help: "Serve SNTP on this UDP address, e.g. 127.0.0.1:12300 or [::1]:123.")
    var ntp: String?

    @Option(help: "Serve HTTP /time and the timestamp header on this TCP address, e.g. 127.0.0.1:8080.")
    var http: String?

    @Option(help: "SNTP: sustained requests per second per client address before Kiss-o'-Death RATE, or 'off'.")
    var rateLimit: String = "1"

    @Option(help: "SNTP: sockets sharing the port, each answering on its own core (default: one per core).")
    var threads: Int?

    @Option(help: ArgumentHelp(
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

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: String = "info"

    func validate() throws {
        guard ntp != nil || http != nil else { throw ValidationError("give --ntp HOST:PORT, --http HOST:PORT, or both") }
        if let ntp, parseHTTPAddress(ntp) == nil { throw ValidationError("--ntp: '\(ntp)' is not HOST:PORT") }
        if let http, parseHTTPAddress(http) == nil { throw ValidationError("--http: '\(http)' is not HOST:PORT") }
        guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("unknown --log-level '\(logLevel)'") }
        guard parsedRateLimit != nil else { throw ValidationError("--rate-limit takes a positive number or 'off'") }
        if let threads, !(1...256).contains(threads) { throw ValidationError("--threads takes 1 to 256") }
        if let localStratum, !(1...15).contains(localStratum) { throw ValidationError("--local-stratum takes 1 to 15") }
    }

    var parsedRateLimit: Double? {
        if rateLimit == "off" { return .infinity }
        guard let value = Double(rateLimit), value.isFinite, value > 0 else { return nil }
        return value
    }

    func run() async throws {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = Logger.Level(rawValue: logLevel) ?? .info
            return handler
        }
        let logger = Logger(label: "timesync.serve")
        var services: [any Service] = []
        if let ntp, let address = parseHTTPAddress(ntp) {
            services.append(try makeNTPServerService(
                host: address.host, port: address.port, rateLimit: parsedRateLimit, threads: threads,
                localStratum: localStratum, logger: logger))
        }
        if let http, let address = parseHTTPAddress(http) {
            services.append(try makeHTTPServerService(host: address.host, port: address.port, logger: logger))
        }
        let group = ServiceGroup(
            configuration: .init(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }
}
