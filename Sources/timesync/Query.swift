import Foundation
import TimeSync
#if CLI
import ArgumentParser

/// `timesync query URL`: measure one server's clock against this machine's, like `sntp` / `ntpdig`.
struct Query: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure a server's clock: ntp://HOST[:PORT], nts://HOST[:PORT], roughtime://HOST:PORT?key=BASE64 or http(s)://HOST[:PORT][/PATH].",
        discussion: """
            Prints one line, each value named: the server's time; "offset" (server − this machine's \
            wall clock, positive when the server is ahead) "±" its error bound; "server"; for NTP the \
            "address" that answered, the "stratum" and the "leap" indicator; for HTTP the "method" \
            (header or date); the "samples" used; for HTTP the "requests" sent; and the lowest "delay". \
            NTS (nts://, RFC 8915) makes a key exchange over TLS with the server (port 4460 by default), \
            then authenticated NTP exchanges with the NTP server it names; its line adds "authenticated \
            nts", the "key exchange"'s duration and any replies "dropped" as unauthenticated. Roughtime \
            (roughtime://, RFC 10049) verifies every reply under the pinned key and intersects the signed \
            intervals, each widened by its round trip; its line adds the "version", the "radius", \
            "authenticated signed" and, when replies were lost, "lost N of M requests" (a lost request is \
            sent again; the query fails only when no reply verifies). --json prints the same as one JSON object. HTTP \
            servers are measured with the precise TimeSync header when they send it, else with their \
            Date header. On failure: the error and what to do on stderr, exit status 1 (64 for a \
            usage error).
            """)

    @Argument(help: ArgumentHelp(QueryOptions.Help.url))
    var url: String

    @Option(parsing: .unconditional, help: ArgumentHelp(QueryOptions.Help.samples))
    var samples: Int = QueryOptions.defaults.samples

    @Option(parsing: .unconditional, help: ArgumentHelp(QueryOptions.Help.timeout))
    var timeout: Double = QueryOptions.defaults.timeout

    @Flag(help: ArgumentHelp(QueryOptions.Help.allowLocalAddresses))
    var allowLocalAddresses = false

    @Option(help: ArgumentHelp(QueryOptions.Help.caFile))
    var caFile: [String] = []

    @Flag(help: ArgumentHelp(QueryOptions.Help.dateOnly))
    var dateOnly = false

    @Flag(help: ArgumentHelp(QueryOptions.Help.json))
    var json = false

    var options: QueryOptions {
        QueryOptions(
            url: url, samples: samples, timeout: timeout, allowLocalAddresses: allowLocalAddresses, caFile: caFile, dateOnly: dateOnly,
            json: json)
    }

    func validate() throws {
        if let problem = options.problem { throw ValidationError(problem) }
    }

    func run() async throws {
        print(try await runQuery(options))
    }
}
#endif

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
    /// NTS: the NTP server the key exchange named, `address:port`.
    var ntpServer: String?
    /// NTS and Roughtime: whether the replies were authenticated (always, when there is a report).
    var authenticated: Bool?
    /// Roughtime: the version the server answered in (`1`, `0x8000000c`, …).
    var version: String?
    /// Roughtime: the signed radius, seconds.
    var radius: Double?
    /// Roughtime: requests whose reply never came (the query retries them within its deadline).
    var lost: Int?
    /// NTS: how long the key exchange took, seconds.
    var keyExchange: Double?
    /// NTS: datagrams dropped (altered, forged, unauthenticated, stray), by reason.
    var dropped: [String: Int]?
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

/// A query's text line, every value named: the server's time, then `offset +1.500123 s ± 0.000456 s`
/// (server − this machine's wall clock, positive when the server is ahead, and the error bound),
/// then each field as `name value`, two spaces between fields.
func labeledQueryLine(serverTime: UnixTime, offset: Double, error: Double, _ fields: [(name: String, value: String)]) -> String {
    ([String(describing: serverTime), String(format: "offset %+.6f s ± %.6f s", offset, error)]
        + fields.map { $0.value.isEmpty ? $0.name : "\($0.name) \($0.value)" })
        .joined(separator: "  ")
}

/// Seconds with six decimals and their unit, for text lines.
func secondsText(_ value: Double) -> String {
    String(format: "%.6f s", value)
}

/// One line of JSON with sorted keys.
func compactJSON(_ value: some Encodable) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return String(decoding: try encoder.encode(value), as: UTF8.self)
}
