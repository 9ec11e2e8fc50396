import Foundation
import TimeSync
import TimeSyncNTP

/// The settings of `timesync query`, checked the same way whichever way the command was built.
struct QueryOptions: Sendable {
    /// The server's URL.
    var url: String
    var samples = 4
    var timeout: Double = 2
    var allowLocalAddresses = false
    var caFile: [String] = []
    var dateOnly = false
    var json = false

    /// The defaults, for help texts.
    static let defaults = QueryOptions(url: "")

    /// What is wrong with the settings, as a usage error says it; `nil` when they are good.
    var problem: String? {
        guard (1...64).contains(samples) else { return "--samples \(samples): give a number of samples from 1 to 64" }
        guard timeout.isFinite, timeout > 0, timeout <= 60 else { return "--timeout \(timeout): give seconds, more than 0 and at most 60" }
        if let scheme = TimeServerURL.scheme(of: url) {
            if dateOnly, !scheme.isHTTP { return "--date-only applies to http(s) URLs, not to '\(url)'" }
            if scheme != .nts, !caFile.isEmpty { return "--ca-file applies to nts:// URLs, not to '\(url)'" }
            for file in caFile where !FileManager.default.isReadableFile(atPath: file) {
                return "--ca-file '\(file)': no readable file there; give a PEM file of certificate authorities"
            }
        }
        if case .failure(let problem) = TimeServerURL.parse(url, command: "query") { return problem.message }
        return nil
    }
}

extension QueryOptions {
    /// Each flag's help, the same in both builds of the command.
    enum Help {
        static let url =
            "The server: ntp://HOST[:PORT], nts://HOST[:PORT] (NTS-KE port, 4460 by default), roughtime://HOST:PORT?key=BASE64[&versions=…], http://HOST[:PORT][/PATH] or https://…"
        static let samples =
            "How many samples to take (1-64). HTTP sends one more request first, to open the connection; with the Date header its response is one of the samples."
        static let timeout =
            "Seconds one exchange may take (more than 0, at most 60), whole: an NTP request and its reply; an HTTP connection, response head and body."
        static let allowLocalAddresses =
            "NTP: use the addresses a host name resolves to even when they are loopback, private or link-local (by default only public ones; an IP literal or localhost is always used)."
        static let caFile = "NTS: a PEM file of certificate authorities to trust for the key-exchange server, beside the system's (repeatable)."
        static let dateOnly = "HTTP: use the Date header even when the server sends the precise header."
        static let json =
            "Print JSON: the report, or on failure {\"error\": …, \"errorType\": …, \"help\": …, \"url\": …} (exit status 1; 64 for a usage error)."
    }
}

/// Runs `timesync query`: measures the server and returns the line or JSON object to print.
/// - Throws: ``CommandFailure`` (with the URL) for every failure.
func runQuery(_ options: QueryOptions) async throws -> String {
    let url = options.url
    var endpoint: String?
    do {
        let server: TimeServerURL
        switch TimeServerURL.parse(url, command: "query") {
        case .success(let parsed): server = parsed
        case .failure(let problem): throw CommandFailure.invalidArgument(problem.message, help: "Run 'timesync query --help'.")
        }
        endpoint = server.endpoint
        switch server {
        case .ntp(let address):
            return try await runNTPQuery(
                address, samples: options.samples, timeout: options.timeout, allowLocalAddresses: options.allowLocalAddresses, json: options.json)
        #if CLI
        case .nts(let server):
            return try await runNTSQuery(
                server, samples: options.samples, timeout: options.timeout, caFiles: options.caFile,
                allowLocalAddresses: options.allowLocalAddresses, json: options.json)
        case .roughtime(let server):
            return try await runRoughtimeQuery(
                server, samples: options.samples, timeout: options.timeout, allowLocalAddresses: options.allowLocalAddresses, json: options.json)
        #endif
        case .http:
            return try await runHTTPQuery(url: url, samples: options.samples, dateOnly: options.dateOnly, timeout: options.timeout, json: options.json)
        }
    } catch let error where !(error is CancellationError) {
        var failure = CommandFailure.from(error, server: endpoint)
        failure.url = url
        throw failure
    }
}
