import Foundation
import Logging
import TimeSync
import TimeSyncNTP

/// The JSON of `timesync query ntp://…`: seconds as numbers, the same field names as the HTTP query.
struct NTPQueryReport: Encodable {
    /// The server, `host:port`.
    var server: String
    /// The IP address that answered.
    var address: String
    /// Server time − local wall clock, seconds; positive when the server is ahead.
    var offset: Double
    /// Half-width of the bounds around `offset`, seconds.
    var error: Double
    /// Lowest network delay of the samples, seconds.
    var delay: Double
    /// The server's stratum.
    var stratum: Int
    /// Samples used.
    var samples: Int
    /// Bounds on the offset, seconds.
    var bounds: [Double]
    /// The server's reference identifier (ASCII or dotted quad).
    var referenceID: String
    /// Leap indicator: `none`, `insert`, `delete` or `unsynchronized`.
    var leap: String
    /// Root delay / 2 + root dispersion, seconds.
    var rootDistance: Double
}

/// Runs `timesync query ntp://HOST[:PORT]`, like `sntp`/`ntpdig`.
///
/// - Parameters:
///   - url: `ntp://HOST[:PORT]` (also accepted: `HOST`, `HOST:PORT`, `[V6]:PORT`).
///   - samples: Exchanges to combine (at least 1).
///   - timeout: Seconds to wait for each reply.
///   - json: Print JSON instead of a line of text.
/// - Returns: The text to print: one line like `sntp`'s, or a JSON object.
/// - Throws: `NTPClientError` (bad address, DNS, timeout, network) and `NTPReplyError` (a rejected
///   reply, e.g. a Kiss-o'-Death).
func runNTPQuery(url: String, samples: Int, timeout: Double, json: Bool) async throws -> String {
    guard let server = NTPServerAddress(parsing: url), !url.contains("://") || url.lowercased().hasPrefix("ntp://") else {
        throw NTPClientError.invalidServerAddress
    }
    guard timeout.isFinite, timeout > 0 else { throw NTPClientError.invalidServerAddress }
    let client = NTPClient(logger: Logger(label: "timesync.ntp"))
    let result = try await client.query(
        host: server.host, port: server.port, timeout: .seconds(double: timeout), samples: max(1, samples),
        interval: .milliseconds(250))
    return json ? try ntpQueryJSON(result) : ntpQueryLine(result)
}

/// The result as JSON (sorted keys, one line).
func ntpQueryJSON(_ result: NTPQueryResult) throws -> String {
    let report = NTPQueryReport(
        server: result.server.description, address: result.address, offset: result.offset.secondsValue,
        error: result.error.secondsValue, delay: result.delay.secondsValue, stratum: Int(result.stratum),
        samples: result.samples.count,
        bounds: [Double(result.bounds.lower) / 1e9, Double(result.bounds.upper) / 1e9],
        referenceID: result.referenceID.description, leap: leapName(result.leap),
        rootDistance: result.rootDistance.secondsValue)
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return String(decoding: try encoder.encode(report), as: UTF8.self)
}

/// The result as `sntp` prints it: `2026-11-21T05:36:17.123Z +1.500123 +/- 0.000456 host address s3 no-leap`.
func ntpQueryLine(_ result: NTPQueryResult) -> String {
    let offset = String(format: "%+.6f", result.offset.secondsValue)
    let error = String(format: "%.6f", result.error.secondsValue)
    let leap = result.leap == .noWarning ? "no-leap" : leapName(result.leap)
    return "\(result.serverTime) \(offset) +/- \(error) \(result.server.host) \(result.address) s\(result.stratum) \(leap)"
}

private func leapName(_ leap: NTPLeapIndicator) -> String {
    switch leap {
    case .noWarning: "none"
    case .lastMinuteHas61Seconds: "insert"
    case .lastMinuteHas59Seconds: "delete"
    case .unsynchronized: "unsynchronized"
    }
}
