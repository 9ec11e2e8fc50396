#if CLI
import Foundation
import TimeSync
import TimeSyncNTP
import TimeSyncRoughtime

/// Runs `timesync query roughtime://HOST:PORT?key=BASE64`: `samples` exchanges, each reply verified
/// under the pinned key; the signed intervals, each widened by its round trip, are intersected. A lost
/// request is sent again (up to twice `samples` requests, within the time `samples` exchanges may
/// take); the query fails only when no reply verified, and says how many were lost.
/// - Returns: One line, each value named (the server's time, the offset of this machine's wall clock
///   ± the error, the server, the address that answered, the version, the radius, the samples, the
///   lowest delay, `authenticated signed`, and `lost N of M requests` when some were) or the JSON object.
/// - Throws: `RoughtimeError` (timeout, the last refusal named), `NTPClientError` (resolution,
///   socket), ``CommandFailure`` (`noMajority`) when the server's own signed intervals contradict
///   each other.
func runRoughtimeQuery(url: String, samples: Int, timeout: Double, allowLocalAddresses: Bool, json: Bool) async throws -> String {
    let server = try RoughtimeURL(url)
    let timeBase = SystemTimeBase()
    let client = RoughtimeClient(
        host: server.host, port: server.port, publicKey: server.publicKey, versions: server.versions, timeBase: timeBase,
        addressPolicy: allowLocalAddresses ? .allowingLocal : .publicOnly)
    // Lost datagrams do not fail the query: it sends up to twice `samples` requests, one at a time,
    // within one deadline (what `samples` exchanges may take), and fails only when no reply verified.
    // A reply that does not verify still fails it at once: the path or the server lies.
    let wanted = max(1, samples)
    let deadline = timeBase.monotonicNow().advanced(by: .seconds(double: timeout * Double(wanted)))
    var exchanges: [RoughtimeClient.Exchange] = []
    var attempts = 0
    var lastLoss: RoughtimeError?
    while exchanges.count < wanted, attempts < 2 * wanted {
        let remaining = timeBase.monotonicNow().duration(to: deadline)
        guard remaining > .milliseconds(10) else { break }
        if attempts > 0 { try await Task.sleep(for: min(.milliseconds(250), remaining / 2)) }
        attempts += 1
        do {
            exchanges.append(
                try await roughtimeExchange(
                    client, server: server, timeout: min(timeout, timeBase.monotonicNow().duration(to: deadline).secondsValue)))
        } catch let error as RoughtimeError where error == .timeout {
            lastLoss = error
        }
    }
    let lost = attempts - exchanges.count
    guard !exchanges.isEmpty else {
        throw RoughtimeError(
            .timeout,
            "no reply from \(server.description) verified: \(lost) of \(attempts) requests lost\(lastLoss.map { $0.detail.isEmpty ? "" : " (last: \($0.detail))" } ?? "")")
    }
    let collected = try exchanges.map { try $0.sample(source: server.description) }
    // Every interval is signed by the same key: the truth lies in all of them, or the server lied.
    var bounds = collected[0].offset
    for sample in collected.dropFirst() {
        guard let common = bounds.intersection(sample.offset) else {
            throw CommandFailure(
                kind: .noMajority,
                message:
                    "\(server.description) signed times that cannot all hold, even widened by each round trip: \(exchanges.map { "\($0.response.midpoint) ± \($0.response.radius.readable)" }.joined(separator: ", "))",
                help: "The server's clock jumped or it lies: query it with other servers ('timesync roughtime query A B') to prove which.")
        }
        bounds = common
    }
    // The samples' offsets are to the monotonic clock; the report's, to the wall clock.
    let monotonic = timeBase.monotonicNow()
    let wall = timeBase.wallNow()
    let wallMinusMonotonic = wall.nanoseconds.saturatingSubtract(monotonic.nanoseconds)
    let lower = bounds.lower.saturatingSubtract(wallMinusMonotonic)
    let upper = bounds.upper.saturatingSubtract(wallMinusMonotonic)
    let offset = lower / 2 + upper / 2
    let error = upper / 2 - lower / 2
    let delay = exchanges.map { $0.responseReceived.nanoseconds.saturatingSubtract($0.requestSent.nanoseconds) }.min() ?? 0
    let last = exchanges[exchanges.count - 1]
    if json {
        var report = QueryReport(
            server: server.description, offset: Double(offset) / 1e9, error: Double(error) / 1e9, delay: Double(delay) / 1e9,
            samples: collected.count, bounds: [Double(lower) / 1e9, Double(upper) / 1e9])
        report.address = "\(last.address)"
        report.authenticated = true
        report.version = "\(last.response.version)"
        report.radius = last.response.radius.secondsValue
        report.lost = lost
        return try compactJSON(report)
    }
    let serverTime = UnixTime(nanoseconds: wall.nanoseconds.saturatingAdd(offset))
    return labeledQueryLine(
        serverTime: serverTime, offset: Double(offset) / 1e9, error: Double(error) / 1e9,
        [
            ("server", server.description), ("address", "\(last.address)"), ("version", "\(last.response.version)"),
            ("radius", last.response.radius.readable), ("samples", "\(collected.count)"), ("delay", secondsText(Double(delay) / 1e9)),
            ("authenticated", "signed"),
        ] + (lost > 0 ? [("lost", "\(lost) of \(attempts) requests")] : []))
}

/// One exchange, a closed port told in Roughtime's terms.
func roughtimeExchange(_ client: RoughtimeClient, server: RoughtimeURL, nonce: [UInt8]? = nil, timeout: Double) async throws -> RoughtimeClient.Exchange {
    do {
        return try await client.exchange(nonce: nonce, timeout: .seconds(double: timeout))
    } catch let error as NTPClientError where error == .unreachable {
        throw CommandFailure(
            kind: .refused, message: "nothing listens on \(server.description): its host answered that the UDP port is closed (ICMP port unreachable)",
            help: "Check the port (Roughtime's is usually 2002), or start a server there (timesync serve --roughtime HOST:PORT --key FILE).")
    }
}
#endif
