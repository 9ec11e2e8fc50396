#if CLI
import Logging
import ServiceLifecycle
import TimeSync
import TimeSyncHummingbird

/// The service behind `timesync serve --http HOST:PORT`: a Hummingbird application serving `/time`
/// with every response stamped by `TimestampResponder`, its `Date` header the second of the same clock
/// reading as t3 (a `TimeSyncApplication`: no date cache). Run it in the command's `ServiceGroup`
/// (next to the NTP server when `--ntp` is given).
///
/// - Parameters:
///   - host: The address to bind.
///   - port: The port to bind (0 picks a free one).
///   - limits: Header and idle timeouts and connection caps.
///   - logger: The server's logger; the bound address and the limits are logged at `notice` once
///     listening.
/// - Returns: The service.
/// - Throws: Never today; kept throwing so address validation can be added without breaking callers.
func makeHTTPServerService(host: String, port: Int, limits: HTTPConnectionLimits, logger: Logger) throws -> some Service {
    TimeSyncHTTPServer.application(
        host: host, port: port, timeBase: SystemTimeBase(), limits: limits, logger: logger,
        onServerRunning: { boundPort in
            logger.notice(
                "HTTP time server listening",
                metadata: [
                    "address": "\(host):\(boundPort)", "headerTimeout": "\(limits.headerTimeout)",
                    "idleTimeout": "\(limits.idleTimeout)", "maximumConnections": "\(limits.maximumConnections)",
                    "maximumConnectionsPerAddress": "\(limits.maximumConnectionsPerAddress)",
                ])
        })
}

/// Splits `HOST:PORT` (IPv6 as `[::1]:8080`) for `--http`.
/// - Returns: `nil` when the value has no valid port.
func parseHTTPAddress(_ value: String) -> (host: String, port: Int)? {
    guard let colon = value.lastIndex(of: ":"), let port = Int(value[value.index(after: colon)...]),
        (0...65_535).contains(port)
    else { return nil }
    var host = String(value[..<colon])
    if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
    return host.isEmpty ? nil : (host, port)
}
#endif
