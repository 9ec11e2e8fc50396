#if CLI
import Foundation
import Logging
import ServiceLifecycle
import TimeSync
import TimeSyncWire
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
///   - cors: Which web pages on other origins may read the time headers; `nil` for none.
///   - logger: The server's logger; the bound address and the limits are logged at `info` once
///     listening, and the stop once stopped.
/// - Returns: The service.
/// - Throws: Never today; kept throwing so address validation can be added without breaking callers.
func makeHTTPServerService(host: String, port: Int, limits: HTTPConnectionLimits, cors: TimeSyncCORS?, logger: Logger) throws -> some Service {
    // Hummingbird announces its own start at `info`; the command says it once, with the limits, so
    // at `info` Hummingbird's logger starts at `notice` (at `debug` and `trace` it says everything).
    var hummingbirdLogger = logger
    if logger.logLevel == .info { hummingbirdLogger.logLevel = .notice }
    let web = webClientFiles()
    let listening = Locked(false)
    let application = TimeSyncHTTPServer.application(
        host: host, port: port, timeBase: SystemTimeBase(), limits: limits, cors: cors, files: web ?? [:], logger: hummingbirdLogger,
        onServerRunning: { boundPort in
            listening.withLock { $0 = true }
            // The address to open: a wildcard address is reached on this machine as loopback.
            let reachable = host == "0.0.0.0" ? "127.0.0.1" : host == "::" ? "::1" : host
            let base = "http://\(HostPort.format(host: reachable, port: boundPort))"
            logger.notice(
                web == nil
                    ? "serving the time at \(base)/time"
                    : "open \(base)/ in a browser: the demo page, a countdown with its error bound (the time itself at \(base)/time)")
            logger.info(
                "HTTP time server listening",
                metadata: [
                    "address": "\(host):\(boundPort)", "headerTimeout": "\(limits.headerTimeout)",
                    "idleTimeout": "\(limits.idleTimeout)", "maximumConnections": "\(limits.maximumConnections)",
                    "maximumConnectionsPerAddress": "\(limits.maximumConnectionsPerAddress)",
                    "corsOrigins": "\(cors.map { cors in if case .only(let list) = cors.origins { list.joined(separator: " ") } else { "*" } } ?? "none")",
                    "webClient": "\(web == nil ? "not bundled beside this executable" : "/timesync.js, demo page /")",
                ])
        })
    return StopLogged(
        base: application, logger: logger, message: "HTTP time server stopped", address: "\(host):\(port)",
        started: { listening.withLock { $0 } })
}

/// The JavaScript client (`/timesync.js`) and its demo page (`/`), from the resources SwiftPM builds
/// beside the executable; `nil` when they are not there (the executable was copied without them),
/// and then only `/time` is served.
func webClientFiles() -> [String: TimeSyncHTTPServer.StaticFile]? {
    let directory = Bundle.main.bundleURL
    for name in ["TimeSync_timesync.resources", "TimeSync_timesync.bundle"] {
        guard let bundle = Bundle(url: directory.appendingPathComponent(name)),
            let script = bundle.url(forResource: "timesync", withExtension: "js").flatMap({ try? Data(contentsOf: $0) }),
            let page = bundle.url(forResource: "index", withExtension: "html").flatMap({ try? Data(contentsOf: $0) })
        else { continue }
        let html = TimeSyncHTTPServer.StaticFile(contentType: "text/html; charset=utf-8", body: Array(page))
        return [
            "/timesync.js": TimeSyncHTTPServer.StaticFile(contentType: "text/javascript; charset=utf-8", body: Array(script)),
            "/": html, "/index.html": html,
        ]
    }
    return nil
}

/// A service that logs its stop once it has stopped, as the NTP, NTS-KE and Roughtime servers do;
/// one that never started (its port in use) logs nothing: its error says what happened.
struct StopLogged<Base: Service>: Service {
    let base: Base
    let logger: Logger
    let message: Logger.Message
    let address: String
    /// Whether the service got as far as listening.
    var started: @Sendable () -> Bool = { true }

    func run() async throws {
        defer { if started() { logger.info(message, metadata: ["address": .string(address)]) } }
        try await base.run()
    }
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
