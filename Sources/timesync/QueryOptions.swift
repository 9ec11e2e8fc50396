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

    /// The URL's scheme, lowercased (empty without one).
    var scheme: String {
        guard url.contains("://") else { return "" }
        return url.split(separator: ":", maxSplits: 1).first.map { $0.lowercased() } ?? ""
    }

    /// What is wrong with the settings, as a usage error says it; `nil` when they are good.
    var problem: String? {
        guard (1...64).contains(samples) else { return "--samples \(samples): give a number of samples from 1 to 64" }
        guard timeout.isFinite, timeout > 0, timeout <= 60 else { return "--timeout \(timeout): give seconds, more than 0 and at most 60" }
        guard ["ntp", "nts", "roughtime", "http", "https"].contains(scheme) else {
            return "'\(url)' is not an ntp://, nts://, roughtime://, http:// or https:// URL"
        }
        if dateOnly, !["http", "https"].contains(scheme) { return "--date-only applies to http(s) URLs, not to '\(url)'" }
        if scheme != "nts", !caFile.isEmpty { return "--ca-file applies to nts:// URLs, not to '\(url)'" }
        for file in caFile where !FileManager.default.isReadableFile(atPath: file) {
            return "--ca-file '\(file)': no readable file there; give a PEM file of certificate authorities"
        }
        switch scheme {
        case "ntp":
            do {
                _ = try NTPServerAddress(validating: url)
            } catch {
                return "\(error); give ntp://HOST[:PORT], e.g. ntp://pool.ntp.org or ntp://[::1]:12300"
            }
        case "http", "https":
            guard let host = URLComponents(string: url)?.host, !host.isEmpty else {
                return "'\(url)' has no host; give http(s)://HOST[:PORT][/PATH]"
            }
            if HostPort.hasControlCharacter(host) {
                return "'\(url)': its host holds a control character (a NUL or a line break, perhaps as %00 or %0A); give http(s)://HOST[:PORT][/PATH]"
            }
        #if CLI
        case "nts":
            do {
                _ = try NTSURL(url)
            } catch {
                return "\(error); give nts://HOST[:PORT], e.g. nts://time.cloudflare.com or nts://127.0.0.1:4460"
            }
        case "roughtime":
            do {
                _ = try RoughtimeURL(url)
            } catch {
                return RoughtimeURL.problem(error)
            }
        #else
        case "nts", "roughtime":
            return traitMissing(scheme, command: "query")
        #endif
        default: break
        }
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

/// The usage error of a URL scheme this build of the command lacks.
/// - Parameters:
///   - scheme: `nts` or `roughtime`.
///   - command: The command it was given to.
func traitMissing(_ scheme: String, command: String) -> String {
    "\(scheme):// needs the package's CLI trait (SwiftNIO, swift-nio-ssl), which this build leaves out: run swift run --traits CLI timesync \(command) …"
}

/// Runs `timesync query`: measures the server and returns the line or JSON object to print.
/// - Throws: ``CommandFailure`` (with the URL) for every failure.
func runQuery(_ options: QueryOptions) async throws -> String {
    let url = options.url
    do {
        switch options.scheme {
        #if CLI
        case "nts":
            return try await runNTSQuery(
                url: url, samples: options.samples, timeout: options.timeout, caFiles: options.caFile,
                allowLocalAddresses: options.allowLocalAddresses, json: options.json)
        case "roughtime":
            return try await runRoughtimeQuery(
                url: url, samples: options.samples, timeout: options.timeout, allowLocalAddresses: options.allowLocalAddresses, json: options.json)
        #endif
        case "ntp":
            return try await runNTPQuery(
                url: url, samples: options.samples, timeout: options.timeout, allowLocalAddresses: options.allowLocalAddresses, json: options.json)
        case "http", "https":
            return try await runHTTPQuery(url: url, samples: options.samples, dateOnly: options.dateOnly, timeout: options.timeout, json: options.json)
        default:
            throw CommandFailure.invalidArgument(options.problem ?? "'\(url)': no such scheme", help: "Run 'timesync query --help'.")
        }
    } catch let error where !(error is CancellationError) {
        var failure = CommandFailure.from(error, server: queryServer(of: url))
        failure.url = url
        throw failure
    }
}

/// `host:port` of a query's URL, for messages (the scheme's default port when it names none).
func queryServer(of url: String) -> String? {
    let lower = url.lowercased()
    if lower.hasPrefix("ntp://") { return (try? NTPServerAddress(validating: url))?.description }
    #if CLI
    if lower.hasPrefix("nts://") { return (try? NTSURL(url)).map { HostPort.format(host: $0.host, port: $0.port) } }
    if lower.hasPrefix("roughtime://") { return (try? RoughtimeURL(url)).map { HostPort.format(host: $0.host, port: $0.port) } }
    #endif
    guard let components = URLComponents(string: url), let host = components.host, !host.isEmpty else { return nil }
    let port = components.port ?? (components.scheme?.lowercased() == "https" ? 443 : 80)
    return HostPort.format(host: host, port: port)
}
