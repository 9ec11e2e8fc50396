import ArgumentParser
import Foundation

/// `timesync query URL`: measure one server's clock against this machine's, like `sntp` / `ntpdig`.
struct Query: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure a server's clock: ntp://HOST[:PORT] or http(s)://HOST[:PORT][/PATH].",
        discussion: """
            Prints the offset (server − this machine's wall clock, positive when the server is ahead), its \
            error bound, the delay and the samples used. HTTP servers are measured with the precise \
            TimeSync header when they send it, else with their Date header.
            """)

    @Argument(help: "The server: ntp://HOST[:PORT], http://HOST[:PORT][/PATH] or https://…")
    var url: String

    @Option(help: "How many samples to take (1-64); HTTP sends one more request first, to open the connection.")
    var samples: Int = 4

    @Option(help: "Seconds one exchange may take, whole: an NTP request and its reply; an HTTP connection, response head and body.")
    var timeout: Double = 2

    @Flag(help: "HTTP: use the Date header even when the server sends the precise header.")
    var dateOnly = false

    @Flag(help: "Print JSON: the report, or on failure {\"error\": …, \"errorType\": …, \"url\": …} (exit status 1).")
    var json = false

    func validate() throws {
        guard (1...64).contains(samples) else { throw ValidationError("--samples must be between 1 and 64") }
        guard timeout.isFinite, timeout > 0, timeout <= 60 else { throw ValidationError("--timeout must be in (0, 60] seconds") }
        let scheme = url.split(separator: ":", maxSplits: 1).first.map { $0.lowercased() } ?? ""
        guard ["ntp", "http", "https"].contains(scheme), url.contains("://") else {
            throw ValidationError("'\(url)' is not an ntp://, http:// or https:// URL")
        }
        if dateOnly, scheme == "ntp" { throw ValidationError("--date-only applies to http(s) URLs") }
    }

    func run() async throws {
        do {
            if url.lowercased().hasPrefix("ntp://") {
                print(try await runNTPQuery(url: url, samples: samples, timeout: timeout, json: json))
            } else {
                print(try await runHTTPQuery(url: url, samples: samples, dateOnly: dateOnly, timeout: timeout, json: json))
            }
        } catch let error where json && !(error is CancellationError) {
            // A script reading stdout gets JSON either way; the exit status says which.
            print(try compactJSON(QueryFailure(error: "\(error)", errorType: "\(type(of: error))", url: url)))
            throw ExitCode.failure
        }
    }
}

/// The JSON of a failed `timesync query --json`.
struct QueryFailure: Encodable {
    /// What happened, in words (the same text the human output prints).
    var error: String
    /// The error's type, e.g. `NTPClientError`, `NTPReplyError`, `HTTPTimeError`.
    var errorType: String
    /// The URL queried.
    var url: String
}

/// The JSON of `timesync query`, for every kind of server: the common fields first, then those only
/// one protocol has (absent otherwise). Seconds as numbers.
struct QueryReport: Encodable {
    /// The server, `host:port`.
    var server: String
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

    /// NTP: the IP address that answered.
    var address: String?
    /// NTP: the server's stratum.
    var stratum: Int?
    /// NTP: the server's reference identifier (ASCII or dotted quad).
    var referenceID: String?
    /// NTP: leap indicator, `none`, `insert`, `delete` or `unsynchronized`.
    var leap: String?
    /// NTP: root delay / 2 + root dispersion, seconds.
    var rootDistance: Double?

    /// HTTP: the URL queried.
    var url: String?
    /// HTTP: `header` (TimeSync-Time) or `date` (Date header).
    var method: String?
    /// HTTP: requests sent, the discarded connection-opening one included.
    var requests: Int?
    /// HTTP: responses rejected (cached, replayed, malformed).
    var rejected: Int?
}

/// One line of JSON with sorted keys.
func compactJSON(_ value: some Encodable) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return String(decoding: try encoder.encode(value), as: UTF8.self)
}
