import Foundation
import Logging
import TimeSync
import TimeSyncHTTP

/// The JSON of `timesync query http(s)://…`: the same fields as the NTP query, seconds as numbers.
struct HTTPQueryReport: Encodable {
    /// The server, `host[:port]`.
    var server: String
    /// The URL queried.
    var url: String
    /// Server time − local wall clock, seconds; positive when the server is ahead.
    var offset: Double
    /// Half-width of the bounds around `offset`, seconds.
    var error: Double
    /// Lowest network delay of the samples, seconds.
    var delay: Double
    /// Samples used.
    var samples: Int
    /// Bounds on the offset, seconds.
    var bounds: [Double]
    /// `header` (TimeSync-Time) or `date` (Date header).
    var method: String
    /// Requests sent, the discarded connection-opening one included.
    var requests: Int
    /// Responses rejected (cached, replayed, malformed).
    var rejected: Int
}

/// Runs `timesync query http(s)://HOST[:PORT][/PATH]`.
///
/// - Parameters:
///   - url: An absolute http(s) URL.
///   - samples: Requests to sample after the connection-opening one (the request budget when the
///     `Date` header is used).
///   - dateOnly: Use the `Date` header even when the server sends `TimeSync-Time`.
///   - json: Print JSON instead of a line of text.
/// - Returns: The text to print.
/// - Throws: `HTTPTimeError` and transport errors.
func runHTTPQuery(url: String, samples: Int, dateOnly: Bool, json: Bool) async throws -> String {
    let timeBase = SystemTimeBase()
    let client = HTTPTimeSource.makeClient()
    let measurement: HTTPTimeMeasurement
    do {
        let source = try HTTPTimeSource(
            url: url, client: client, policy: dateOnly ? .dateOnly : .preferTimeHeader, timeBase: timeBase,
            logger: Logger(label: "timesync.http"))
        measurement = try await source.measure(samples: samples)
    } catch {
        try? await client.shutdown()
        throw error
    }
    try await client.shutdown()
    let monotonic = timeBase.monotonicNow()
    let wall = timeBase.wallNow()
    let (estimate, bounds) = measurement.wallOffset(monotonic: monotonic, wall: wall)
    let report = HTTPQueryReport(
        server: measurement.source, url: url, offset: Double(estimate) / 1e9,
        error: Double(max(estimate - bounds.lower, bounds.upper - estimate)) / 1e9,
        delay: Double(measurement.delay) / 1e9, samples: measurement.samples.count,
        bounds: [Double(bounds.lower) / 1e9, Double(bounds.upper) / 1e9],
        method: measurement.method.rawValue, requests: measurement.requests, rejected: measurement.rejected)
    if json {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(report), as: UTF8.self)
    }
    // Like the NTP query's line: `2026-11-21T05:36:17.123Z +2.345012 +/- 0.000321 host:port header 8 samples`.
    let serverTime = wall.advanced(by: .nanoseconds(estimate))
    let offsetText = String(format: "%+.6f", report.offset)
    let errorText = String(format: "%.6f", report.error)
    return "\(serverTime) \(offsetText) +/- \(errorText) \(report.server) \(report.method) "
        + "\(report.samples) samples \(report.requests) requests delay \(String(format: "%.6f", report.delay))"
}
