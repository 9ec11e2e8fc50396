import Foundation
import TimeSync
import TimeSyncWire
import TimeSyncNTP

/// Runs `timesync query ntp://HOST[:PORT]`, like `sntp`/`ntpdig`.
///
/// - Parameters:
///   - server: The server.
///   - samples: Exchanges to combine (at least 1).
///   - timeout: Seconds to wait for each reply (more than 0).
///   - json: Print JSON instead of a line of text.
/// - Returns: The text to print: one line like `sntp`'s, or a JSON object.
/// - Throws: `NTPClientError` (DNS, timeout, network), `NTPReplyError` (a rejected reply, e.g. a
///   Kiss-o'-Death), `SampleConsensusError`.
func runNTPQuery(_ server: NTPServerAddress, samples: Int, timeout: Double, allowLocalAddresses: Bool = false, json: Bool) async throws -> String {
    let client = NTPClient(timeBase: SystemTimeBase(), addressPolicy: allowLocalAddresses ? .allowingLocal : .publicOnly)
    let result = try await client.query(
        host: server.host, port: server.port, timeout: .seconds(double: timeout), samples: max(1, samples),
        interval: .milliseconds(250))
    return json ? try ntpQueryJSON(result) : ntpQueryLine(result)
}

/// The result as JSON (sorted keys, one line).
func ntpQueryJSON(_ result: NTPQueryResult) throws -> String {
    try compactJSON(ntpQueryReport(result))
}

/// The result as the report `--json` prints.
func ntpQueryReport(_ result: NTPQueryResult) -> QueryReport {
    var report = QueryReport(
        server: result.server.description, offset: result.wallClockOffset.secondsValue, error: result.error.secondsValue,
        delay: result.delay.secondsValue, samples: result.samples.count,
        bounds: [Double(result.bounds.lower) / 1e9, Double(result.bounds.upper) / 1e9])
    report.address = result.address
    report.stratum = Int(result.stratum)
    report.referenceID = result.referenceID.description
    report.leap = leapName(result.leap)
    report.rootDistance = result.rootDistance.secondsValue
    return report
}

/// The result as one line, every value named:
/// `2026-11-21T05:36:17.123Z  offset +1.500123 s ± 0.000456 s  server host:123  address 192.0.2.1  stratum 3  leap none  samples 4  delay 0.001234 s`.
/// - Parameters:
///   - result: The query's result.
///   - server: The server to name, when not the result's (NTS names its key-exchange server).
///   - extra: Fields after the delay.
func ntpQueryLine(_ result: NTPQueryResult, server: String? = nil, extra: [(name: String, value: String)] = []) -> String {
    labeledQueryLine(
        serverTime: result.serverTime, offset: result.wallClockOffset.secondsValue, error: result.error.secondsValue,
        [
            ("server", server ?? result.server.description), ("address", "\(result.address)"), ("stratum", "\(result.stratum)"),
            ("leap", leapName(result.leap)), ("samples", "\(result.samples.count)"), ("delay", secondsText(result.delay.secondsValue)),
        ] + extra)
}

private func leapName(_ leap: NTPLeapIndicator) -> String {
    switch leap {
    case .noWarning: "none"
    case .lastMinuteHas61Seconds: "insert"
    case .lastMinuteHas59Seconds: "delete"
    case .unsynchronized: "unsynchronized"
    }
}
