#if CLI
import ArgumentParser
import Foundation
import TimeSync
import TimeSyncNTP
import TimeSyncNTPServer

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
            intervals, each widened by its round trip; its line adds the "version", the "radius" and \
            "authenticated signed". --json prints the same as one JSON object. HTTP \
            servers are measured with the precise TimeSync header when they send it, else with their \
            Date header. On failure: the error and what to do on stderr, exit status 1 (64 for a \
            usage error).
            """)

    @Argument(
        help:
            "The server: ntp://HOST[:PORT], nts://HOST[:PORT] (NTS-KE port, 4460 by default), roughtime://HOST:PORT?key=BASE64[&versions=…], http://HOST[:PORT][/PATH] or https://…"
    )
    var url: String

    @Option(
        parsing: .unconditional,
        help: "How many samples to take (1-64). HTTP sends one more request first, to open the connection; with the Date header its response is one of the samples.")
    var samples: Int = 4

    @Option(
        parsing: .unconditional,
        help: "Seconds one exchange may take (more than 0, at most 60), whole: an NTP request and its reply; an HTTP connection, response head and body.")
    var timeout: Double = 2

    @Flag(help: "NTP: use the addresses a host name resolves to even when they are loopback, private or link-local (by default only public ones; an IP literal or localhost is always used).")
    var allowLocalAddresses = false

    @Option(help: "NTS: a PEM file of certificate authorities to trust for the key-exchange server, beside the system's (repeatable).")
    var caFile: [String] = []

    @Flag(help: "HTTP: use the Date header even when the server sends the precise header.")
    var dateOnly = false

    @Flag(help: "Print JSON: the report, or on failure {\"error\": …, \"errorType\": …, \"help\": …, \"url\": …} (exit status 1; 64 for a usage error).")
    var json = false

    func validate() throws {
        guard (1...64).contains(samples) else {
            throw ValidationError("--samples \(samples): give a number of samples from 1 to 64")
        }
        guard timeout.isFinite, timeout > 0, timeout <= 60 else {
            throw ValidationError("--timeout \(timeout): give seconds, more than 0 and at most 60")
        }
        let scheme = url.split(separator: ":", maxSplits: 1).first.map { $0.lowercased() } ?? ""
        guard ["ntp", "nts", "roughtime", "http", "https"].contains(scheme), url.contains("://") else {
            throw ValidationError("'\(url)' is not an ntp://, nts://, roughtime://, http:// or https:// URL")
        }
        if scheme == "roughtime" {
            if dateOnly { throw ValidationError("--date-only applies to http(s) URLs, not to '\(url)'") }
            do {
                _ = try RoughtimeURL(url)
            } catch {
                throw ValidationError(RoughtimeURL.problem(error))
            }
        }
        if scheme != "nts", !caFile.isEmpty { throw ValidationError("--ca-file applies to nts:// URLs, not to '\(url)'") }
        for file in caFile where !FileManager.default.isReadableFile(atPath: file) {
            throw ValidationError("--ca-file '\(file)': no readable file there; give a PEM file of certificate authorities")
        }
        if scheme == "nts" {
            if dateOnly { throw ValidationError("--date-only applies to http(s) URLs, not to '\(url)'") }
            do {
                _ = try NTSURL(url)
            } catch {
                throw ValidationError("\(error); give nts://HOST[:PORT], e.g. nts://time.cloudflare.com or nts://127.0.0.1:4460")
            }
        }
        if scheme == "ntp" {
            if dateOnly { throw ValidationError("--date-only applies to http(s) URLs, not to '\(url)'") }
            do {
                _ = try NTPServerAddress(validating: url)
            } catch {
                throw ValidationError("\(error); give ntp://HOST[:PORT], e.g. ntp://pool.ntp.org or ntp://[::1]:12300")
            }
        }
    }

    func run() async throws {
        do {
            if url.lowercased().hasPrefix("nts://") {
                print(
                    try await runNTSQuery(
                        url: url, samples: samples, timeout: timeout, caFiles: caFile, allowLocalAddresses: allowLocalAddresses, json: json))
            } else if url.lowercased().hasPrefix("roughtime://") {
                print(try await runRoughtimeQuery(url: url, samples: samples, timeout: timeout, allowLocalAddresses: allowLocalAddresses, json: json))
            } else if url.lowercased().hasPrefix("ntp://") {
                print(try await runNTPQuery(url: url, samples: samples, timeout: timeout, allowLocalAddresses: allowLocalAddresses, json: json))
            } else {
                print(try await runHTTPQuery(url: url, samples: samples, dateOnly: dateOnly, timeout: timeout, json: json))
            }
        } catch let error where !(error is CancellationError) {
            var failure = CommandFailure.from(error, server: Self.server(of: url))
            failure.url = url
            throw failure
        }
    }

    /// `host:port` of the URL, for messages (the scheme's default port when it names none).
    static func server(of url: String) -> String? {
        if url.lowercased().hasPrefix("ntp://") { return (try? NTPServerAddress(validating: url))?.description }
        if url.lowercased().hasPrefix("nts://") { return (try? NTSURL(url)).map { HostPort.format(host: $0.host, port: $0.port) } }
        if url.lowercased().hasPrefix("roughtime://") { return (try? RoughtimeURL(url)).map { HostPort.format(host: $0.host, port: $0.port) } }
        guard let components = URLComponents(string: url), let host = components.host, !host.isEmpty else { return nil }
        let port = components.port ?? (components.scheme?.lowercased() == "https" ? 443 : 80)
        return HostPort.format(host: host, port: port)
    }
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
    /// NTS: the NTP server the key exchange named, `address:port`.
    var ntpServer: String?
    /// NTS and Roughtime: whether the replies were authenticated (always, when there is a report).
    var authenticated: Bool?
    /// Roughtime: the version the server answered in (`1`, `0x8000000c`, …).
    var version: String?
    /// Roughtime: the signed radius, seconds.
    var radius: Double?
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
#endif
