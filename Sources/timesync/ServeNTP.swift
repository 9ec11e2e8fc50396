#if CLI
import Logging
import ServiceLifecycle
import TimeSync
import TimeSyncWire
import TimeSyncServerSupport
import TimeSyncNTP
import TimeSyncNTPServer

/// The service behind `timesync serve --ntp HOST:PORT`: an NTP server answering from this machine's
/// clock, advertising what the kernel says of it (synchronized: stratum 2 and the kernel's maximum
/// error; not: leap indicator 3, stratum 16, unless `localStratum` vouches for it), rate-limited per
/// client with Kiss-o'-Death `RATE`. Run it in the command's `ServiceGroup`, which stops it on
/// SIGINT/SIGTERM; it fails when another process already serves the port.
///
/// - Parameters:
///   - host: The address to bind (`::` or `0.0.0.0` for every interface).
///   - port: The UDP port (0 picks a free one; 123 needs privileges).
///   - rateLimit: Requests per second per client (`nil`: the default; `.infinity`: no limit).
///   - threads: Sockets sharing the port, one event loop each (`nil`: one per core).
///   - localStratum: The stratum to serve an unsynchronized clock at (`nil`: tell clients it is not
///     synchronized).
///   - datagramIO: How the sockets read and write (batched on Linux by default).
///   - kernelTimestamps: With the batched path, receive timestamps from the kernel.
///   - coalescingInterval: With the batched path and kernel timestamps, how long an emptied queue
///     may fill under load.
///   - ipv6ClientPrefixLength: How many leading bits of an IPv6 address name one client.
///   - authenticator: Checks NTS requests and seals their replies (`nil`: plain SNTP only).
///   - logger: The server's logger; the bound address is logged at `info` once listening.
/// - Returns: The service.
/// - Throws: ``CommandFailure`` (`invalidArgument`) for an empty host or a port outside 0–65535.
func makeNTPServerService(
    host: String, port: Int, rateLimit: Double? = nil, threads: Int? = nil, localStratum: UInt8? = nil,
    datagramIO: NTPServerConfiguration.DatagramIO = .platformDefault, kernelTimestamps: Bool = true,
    coalescingInterval: Duration = .microseconds(100), ipv6ClientPrefixLength: Int = 64,
    authenticator: (any NTPRequestAuthenticator)? = nil, logger: Logger
) throws -> some Service {
    guard !host.isEmpty, (0...65_535).contains(port) else {
        throw CommandFailure.invalidArgument(
            "--ntp '\(HostPort.format(host: host, port: port))': not an address to serve on", help: "Give --ntp HOST:PORT with a port from 0 to 65535.")
    }
    var configuration = NTPServerConfiguration(host: host, port: port, threads: threads ?? NTPServerConfiguration.availableCores)
    if let rateLimit { configuration.rateLimit = rateLimit }
    configuration.localStratum = localStratum
    configuration.datagramIO = datagramIO
    configuration.kernelTimestamps = kernelTimestamps
    configuration.coalescingInterval = coalescingInterval
    configuration.ipv6ClientPrefixLength = ipv6ClientPrefixLength
    return NTPServer(configuration: configuration, authenticator: authenticator, logger: logger)
}
#endif
