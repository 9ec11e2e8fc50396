#if CLI
import Foundation
import TimeSync
import TimeSyncWire
import TimeSyncNTP
import TimeSyncRoughtime

/// Runs `timesync query roughtime://HOST:PORT?key=BASE64`: `samples` verified exchanges, combined by
/// ``RoughtimeClient/query(samples:interval:timeout:)`` (lost requests sent again, the signed
/// intervals carried to one instant and intersected).
/// - Returns: One line, each value named (the server's time, the offset of this machine's wall clock
///   ± the error, the server, the address that answered, the version, the radius, the samples, the
///   lowest delay, `authenticated signed`, and `lost N of M requests` when some were) or the JSON object.
/// - Throws: `RoughtimeError` (timeout, the last refusal named), `NTPClientError` (resolution,
///   socket), ``CommandFailure`` (`refused` for a closed port, `noMajority` when the server's own
///   signed intervals contradict each other).
func runRoughtimeQuery(_ server: RoughtimeServerURL, samples: Int, timeout: Double, allowLocalAddresses: Bool, json: Bool) async throws -> String {
    let client = RoughtimeClient(server, addressPolicy: allowLocalAddresses ? .allowingLocal : .publicOnly)
    let result: RoughtimeQueryResult
    do {
        result = try await client.query(samples: max(1, samples), interval: .milliseconds(250), timeout: .seconds(double: timeout))
    } catch let error as NTPClientError where error.code == .unreachable {
        throw roughtimeRefused(server)
    } catch let error as RoughtimeError where error.code == .contradictorySignatures {
        throw CommandFailure(
            kind: .noMajority,
            message: "\(server.description) signed times that cannot all hold, even widened by each round trip: \(error.detail)",
            help: CommandFailure.roughtimeContradictionHelp)
    }
    let offset = result.wallClockOffset
    let last = result.exchanges[result.exchanges.count - 1]
    if json {
        var report = QueryReport(
            server: server.description, offset: offset.estimate.secondsValue, error: offset.error.secondsValue, delay: result.delay.secondsValue,
            samples: result.samples.count, bounds: [Double(offset.bounds.lower) / 1e9, Double(offset.bounds.upper) / 1e9])
        report.address = "\(last.address)"
        report.authenticated = true
        report.version = "\(last.response.version)"
        report.radius = last.response.radius.secondsValue
        report.lost = result.lost
        return try compactJSON(report)
    }
    return labeledQueryLine(
        serverTime: offset.serverTime, offset: offset.estimate.secondsValue, error: offset.error.secondsValue,
        [
            ("server", server.description), ("address", "\(last.address)"), ("version", "\(last.response.version)"),
            ("radius", last.response.radius.readable), ("samples", "\(result.samples.count)"), ("delay", secondsText(result.delay.secondsValue)),
            ("authenticated", "signed"),
        ] + (result.lost > 0 ? [("lost", "\(result.lost) of \(result.attempts) requests")] : []))
}

/// A closed Roughtime port, told in Roughtime's terms.
func roughtimeRefused(_ server: RoughtimeServerURL) -> CommandFailure {
    CommandFailure(
        kind: .refused, message: "nothing listens on \(server.description): its host answered that the UDP port is closed (ICMP port unreachable)",
        help: "Check the port (Roughtime's is usually 2002), or start a server there (timesync serve --roughtime HOST:PORT --key FILE).")
}
#endif
