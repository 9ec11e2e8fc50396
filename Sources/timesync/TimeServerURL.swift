import Foundation
import TimeSync
import TimeSyncWire
import TimeSyncNTP
#if CLI
import TimeSyncNTS
import TimeSyncRoughtime
#endif

/// A server as `query` and `watch` take it: the one place where a URL's scheme picks the protocol.
///
/// NTS and Roughtime come with the package's `CLI` trait; without it their URLs are usage errors that
/// say how to build the command with it.
enum TimeServerURL: Sendable {
    case ntp(NTPServerAddress)
    #if CLI
    case nts(NTSServerURL)
    case roughtime(RoughtimeServerURL)
    #endif
    case http(URL)

    /// The schemes the commands take.
    enum Scheme: String, Sendable {
        case ntp, nts, roughtime, http, https

        var isHTTP: Bool { self == .http || self == .https }
    }

    /// The scheme `text` starts with (`scheme://`, in any case); `nil` when it names none the
    /// commands take.
    static func scheme(of text: String) -> Scheme? {
        guard let separator = text.range(of: "://") else { return nil }
        return Scheme(rawValue: text[..<separator.lowerBound].lowercased())
    }

    /// A URL's usage error: what is wrong, and what to give instead.
    struct Problem: Error {
        var message: String
    }

    /// Parses a server's URL. A host DNS cannot carry (a label over 63 octets, a name over 253) is a
    /// usage error here, before any lookup: `ntp://` and `nts://` hosts through `NTPServerAddress`,
    /// the others through the same check.
    /// - Parameters:
    ///   - text: `ntp://…`, `nts://…`, `roughtime://…`, `http://…` or `https://…`.
    ///   - command: The command it was given to, named in the usage error of a scheme this build lacks.
    /// - Returns: The server, or the usage error.
    static func parse(_ text: String, command: String) -> Result<TimeServerURL, Problem> {
        switch scheme(of: text) {
        case nil:
            return .failure(Problem(message: "'\(text)' is not an ntp://, nts://, roughtime://, http:// or https:// URL"))
        case .ntp:
            do {
                return .success(.ntp(try NTPServerAddress(checking: text)))
            } catch {
                return .failure(Problem(message: "\(error); give ntp://HOST[:PORT], e.g. ntp://pool.ntp.org or ntp://[::1]:12300"))
            }
        case .nts:
            #if CLI
            do {
                return .success(.nts(try NTSServerURL(checking: text)))
            } catch {
                return .failure(Problem(message: "\(error); give nts://HOST[:PORT], e.g. nts://time.cloudflare.com or nts://127.0.0.1:4460"))
            }
            #else
            return .failure(Problem(message: traitMissing("nts", command: command)))
            #endif
        case .roughtime:
            #if CLI
            do {
                let server = try RoughtimeServerURL(text)
                if let problem = HostPort.dnsNameProblem(server.host) {
                    return .failure(Problem(message: "'\(text)': \(problem); give roughtime://HOST:PORT?key=BASE64"))
                }
                return .success(.roughtime(server))
            } catch {
                if let failure = CommandFailure.roughtimeURL(error) { return .failure(Problem(message: "\(failure.message); \(failure.help)")) }
                return .failure(Problem(message: "\(error); give roughtime://HOST:PORT?key=BASE64, the server's 32-byte public key"))
            }
            #else
            return .failure(Problem(message: traitMissing("roughtime", command: command)))
            #endif
        case .http, .https:
            guard let url = URL(string: text), let host = url.host, !host.isEmpty else {
                return .failure(Problem(message: "'\(text)' has no host; give http(s)://HOST[:PORT][/PATH]"))
            }
            if HostPort.hasControlCharacter(host) {
                return .failure(
                    Problem(message: "'\(text)': its host holds a control character (a NUL or a line break, perhaps as %00 or %0A); give http(s)://HOST[:PORT][/PATH]"))
            }
            if let problem = HostPort.dnsNameProblem(host) {
                return .failure(Problem(message: "'\(text)': \(problem); give http(s)://HOST[:PORT][/PATH]"))
            }
            return .success(.http(url))
        }
    }

    /// `host:port`, for messages (the scheme's default port when the URL names none).
    var endpoint: String {
        switch self {
        case .ntp(let address): address.description
        #if CLI
        case .nts(let server): HostPort.format(host: server.host, port: server.port)
        case .roughtime(let server): HostPort.format(host: server.host, port: server.port)
        #endif
        case .http(let url): HostPort.format(host: url.host ?? "", port: url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80))
        }
    }
}

/// The usage error of a URL scheme this build of the command lacks.
/// - Parameters:
///   - scheme: `nts` or `roughtime`.
///   - command: The command it was given to.
func traitMissing(_ scheme: String, command: String) -> String {
    "\(scheme):// needs the package's CLI trait (SwiftNIO, swift-nio-ssl), which this build leaves out: run swift run --traits CLI timesync \(command) …"
}
