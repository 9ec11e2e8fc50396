#if CLI
import Foundation
import TimeSync
import TimeSyncNTP
import TimeSyncNTS

/// `nts://HOST[:PORT]`: an NTS-KE server (port 4460 unless given).
struct NTSURL: Sendable, Hashable {
    var host: String
    var port: Int

    /// Parses `nts://HOST[:PORT]`, `nts://[V6]:PORT` or a bare IPv6 literal after the scheme.
    /// - Throws: `NTPClientError.invalidServerAddress` with the reason.
    init(_ text: String) throws {
        guard text.lowercased().hasPrefix("nts://") else {
            throw NTPClientError(.invalidServerAddress, "'\(text)': not an nts:// URL")
        }
        var rest = String(text.dropFirst(6))
        while rest.hasSuffix("/") { rest.removeLast() }
        let explicitPort: Bool
        if rest.hasPrefix("[") {
            explicitPort = rest.contains("]:")
        } else {
            explicitPort = rest.filter { $0 == ":" }.count == 1
        }
        let parsed = try NTPServerAddress(validating: explicitPort ? rest : HostPort.format(host: rest.trimmingCharacters(in: ["[", "]"]), port: NTSKeyExchange.defaultPort))
        host = parsed.host
        port = parsed.port
    }

    var description: String { "nts://" + HostPort.format(host: host, port: port) }
}

/// Runs `timesync query nts://HOST[:PORT]`: a key exchange, then `samples` authenticated exchanges
/// with the NTP server it names, combined like an NTP query's.
/// - Returns: The line (an NTP query's, then `nts`, the key exchange's duration and any datagrams
///   dropped) or the JSON object.
/// - Throws: `NTSKEError`, `NTSReplyError`, `NTPClientError`, `SampleConsensusError`.
func runNTSQuery(url: String, samples: Int, timeout: Double, caFiles: [String], allowLocalAddresses: Bool, json: Bool) async throws -> String {
    let server = try NTSURL(url)
    let client = NTSClient(
        host: server.host, port: server.port,
        configuration: .init(trust: .init(additionalAuthorities: caFiles), addressPolicy: allowLocalAddresses ? .allowingLocal : .publicOnly))
    var replies: [NTPReply] = []
    var collected: [OffsetSample] = []
    var address: IPEndpoint?
    var keyExchange: Duration?
    var lastError: (any Error)?
    for index in 0..<max(1, samples) {
        if index > 0 { try await Task.sleep(for: .milliseconds(250)) }
        do {
            let exchange = try await client.exchange(timeout: .seconds(double: timeout))
            keyExchange = keyExchange ?? exchange.keyExchange?.duration
            address = exchange.server
            collected.append(try exchange.reply.sample(source: server.description))
            replies.append(exchange.reply)
        } catch let error as NTSKEError {
            throw error  // no keys: nothing more to try
        } catch let error as NTPClientError where error == .unreachable {
            throw CommandFailure(
                kind: .refused, message: "nothing listens on the NTP server the key exchange of \(server.description) named: \(error.detail)",
                help: "The key-exchange server sends its clients to an NTP server that is down or closed: tell its operator, or use another server.")
        } catch let error as NTSReplyError where error.ntp == .kissOfDeath || error.ntp == .unsynchronized {
            throw error
        } catch {
            lastError = error
        }
    }
    guard let address, !collected.isEmpty else { throw lastError ?? NTPClientError(.timeout, "no reply") }
    let result = try NTPQueryResult(
        server: NTPServerAddress(host: server.host, port: server.port), address: address, consensusOf: replies, samples: collected,
        timeBase: client.timeBase)
    let statistics = client.statistics
    if json {
        var report = ntpQueryReport(result)
        report.server = server.description
        report.ntpServer = HostPort.format(host: address.address.description, port: Int(address.port))
        report.authenticated = true
        report.keyExchange = keyExchange?.secondsValue
        report.dropped = statistics.dropped
        return try compactJSON(report)
    }
    var extra: [(name: String, value: String)] = [("authenticated", "nts")]
    if let keyExchange { extra.append(("key exchange", String(format: "%.1f ms", keyExchange.secondsValue * 1000))) }
    if statistics.droppedTotal > 0 {
        extra.append(
            ("dropped", "\(statistics.droppedTotal) (" + statistics.dropped.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ") + ")"))
    }
    return ntpQueryLine(result, server: server.description, extra: extra)
}
#endif
