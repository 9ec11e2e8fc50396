#if CLI
import Foundation
import TimeSync
import TimeSyncSockets
import TimeSyncWire
import TimeSyncNTP
import TimeSyncNTS

/// Runs `timesync query nts://HOST[:PORT]`: a key exchange, then `samples` authenticated exchanges
/// with the NTP server it names, combined like an NTP query's.
/// - Returns: The line (an NTP query's, then `nts`, the key exchange's duration and any datagrams
///   dropped) or the JSON object.
/// - Throws: `NTSKEError`, `NTSReplyError`, `NTPClientError`, `SampleConsensusError`, and a
///   ``CommandFailure`` (`refused`) when nothing listens on the NTP server the key exchange named.
func runNTSQuery(_ server: NTSServerURL, samples: Int, timeout: Double, caFiles: [String], allowLocalAddresses: Bool, json: Bool) async throws -> String {
    let client = NTSClient(
        host: server.host, port: server.port,
        configuration: .init(trust: .init(additionalAuthorities: caFiles), addressPolicy: allowLocalAddresses ? .allowingLocal : .publicOnly))
    let query: NTSQueryResult
    do {
        query = try await client.query(samples: max(1, samples), interval: .milliseconds(250), timeout: .seconds(double: timeout))
    } catch let error as NTPClientError where error.code == .unreachable {
        throw CommandFailure(
            kind: .refused, message: "nothing listens on the NTP server the key exchange of \(server.description) named: \(error.detail)",
            help: "The key-exchange server sends its clients to an NTP server that is down or closed: tell its operator, or use another server.")
    }
    let result = query.measurement
    if json {
        var report = ntpQueryReport(result)
        report.server = server.description
        report.ntpServer = HostPort.format(host: query.ntpServer.address.description, port: Int(query.ntpServer.port))
        report.authenticated = true
        report.keyExchange = query.keyExchangeDuration?.secondsValue
        report.dropped = query.dropped
        return try compactJSON(report)
    }
    var extra: [(name: String, value: String)] = [("authenticated", "nts")]
    if let keyExchange = query.keyExchangeDuration {
        extra.append(("key exchange", String(format: "%.1f ms", keyExchange.secondsValue * 1000)))
    }
    if query.droppedTotal > 0 {
        extra.append(
            ("dropped", "\(query.droppedTotal) (" + query.dropped.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ") + ")"))
    }
    return ntpQueryLine(result, server: server.description, extra: extra)
}
#endif
