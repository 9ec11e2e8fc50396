import Logging
import ServiceLifecycle
import TimeSync
import TimeSyncNTP

/// The service behind `timesync serve --ntp HOST:PORT`: an NTP server answering from this machine's
/// clock (stratum 1, reference `LOCL`), rate-limited per client with Kiss-o'-Death `RATE`. Run it in
/// the command's `ServiceGroup`, which stops it on SIGINT/SIGTERM.
///
/// - Parameters:
///   - host: The address to bind (`::` or `0.0.0.0` for every interface).
///   - port: The UDP port (0 picks a free one; 123 needs privileges).
///   - rateLimit: Requests per second per client (`nil`: the default; `.infinity`: no limit).
///   - threads: Sockets sharing the port, one event loop each (`nil`: one per core).
///   - logger: The server's logger; the bound address is logged at `info` once listening.
/// - Returns: The service.
/// - Throws: `NTPClientError.invalidServerAddress` for an empty host or a port outside 0–65535.
func makeNTPServerService(
    host: String, port: Int, rateLimit: Double? = nil, threads: Int? = nil, logger: Logger
) throws -> some Service {
    guard !host.isEmpty, (0...65_535).contains(port) else { throw NTPClientError.invalidServerAddress }
    var configuration = NTPServerConfiguration(host: host, port: port, threads: threads ?? NTPServerConfiguration.availableCores)
    if let rateLimit { configuration.rateLimit = rateLimit }
    return NTPServer(configuration: configuration, logger: logger)
}
