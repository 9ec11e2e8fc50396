import Foundation
import TimeSync
import TimeSyncHTTP
#if CLI
import Logging
import TimeSyncAsyncHTTPClient
#elseif canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Runs `timesync query http(s)://HOST[:PORT][/PATH]`.
///
/// - Parameters:
///   - url: An absolute http(s) URL.
///   - samples: Requests to sample after the connection-opening one (the request budget when the
///     `Date` header is used).
///   - dateOnly: Use the `Date` header even when the server sends `TimeSync-Time`.
///   - timeout: Seconds one request may take, connection, head and body together.
///   - json: Print JSON instead of a line of text.
/// - Returns: The text to print.
/// - Throws: `HTTPTimeError` (the response); for the connection `HTTPTransportError` (built with the
///   CLI trait, on AsyncHTTPClient) or `URLError` (without, on URLSession).
func runHTTPQuery(url: String, samples: Int, dateOnly: Bool, timeout: Double, json: Bool) async throws -> String {
    let timeBase = SystemTimeBase()
    let measurement = try await measureHTTP(url: url, samples: samples, dateOnly: dateOnly, timeout: timeout, timeBase: timeBase)
    let offset = measurement.wallOffset(timeBase.wallClockPair())
    var report = QueryReport(
        server: measurement.source, offset: offset.estimate.secondsValue, error: offset.error.secondsValue,
        delay: Double(measurement.delay) / 1e9, samples: measurement.samples.count,
        bounds: [Double(offset.bounds.lower) / 1e9, Double(offset.bounds.upper) / 1e9])
    report.url = url
    report.method = measurement.scheme.rawValue
    report.requests = measurement.requests
    report.rejected = measurement.rejected
    if json { return try compactJSON(report) }
    // `2026-11-21T05:36:17.123Z  offset +2.345012 s ± 0.000321 s  server host:port  method header  samples 8  requests 9  delay 0.000812 s`.
    return labeledQueryLine(
        serverTime: offset.serverTime, offset: report.offset, error: report.error,
        [
            ("server", report.server), ("method", measurement.scheme.rawValue), ("samples", "\(report.samples)"),
            ("requests", "\(measurement.requests)"), ("delay", secondsText(report.delay)),
        ])
}

#if CLI
/// One measurement on AsyncHTTPClient (a connection of its own, shut down after).
private func measureHTTP(url: String, samples: Int, dateOnly: Bool, timeout: Double, timeBase: SystemTimeBase) async throws -> HTTPTimeMeasurement {
    let client = HTTPTimeSource.makeClient()
    let measurement: HTTPTimeMeasurement
    do {
        let source = try HTTPTimeSource(
            url: url, client: client, policy: dateOnly ? .dateOnly : .preferTimeHeader, timeBase: timeBase,
            timeout: .milliseconds(Int64(timeout * 1000)), logger: Logger(label: "timesync.http"))
        measurement = try await source.measure(samples: samples)
    } catch {
        try? await client.shutdown()
        throw error
    }
    try await client.shutdown()
    return measurement
}
#else
/// One measurement on URLSession (an ephemeral session: no cache, no cookies), no SwiftNIO.
private func measureHTTP(url: String, samples: Int, dateOnly: Bool, timeout: Double, timeBase: SystemTimeBase) async throws -> HTTPTimeMeasurement {
    guard let parsed = URL(string: url) else {
        throw HTTPTimeError.invalidURL.withDetail("'\(url)' is not a URL")
    }
    let session = URLSession(configuration: .ephemeral)
    defer { session.finishTasksAndInvalidate() }
    return try await session.timeMeasurement(
        of: parsed, samples: samples, preference: dateOnly ? .dateOnly : .preferTimeHeader, timeout: .seconds(double: timeout),
        timeBase: timeBase)
}
#endif
