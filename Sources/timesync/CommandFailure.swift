import Foundation
import TimeSync
import TimeSyncHTTP
import TimeSyncNTP
#if CLI
import ArgumentParser
import TimeSyncAsyncHTTPClient
import TimeSyncNTS
#endif
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A failed `timesync` command as its user sees it: a stable kind, what happened, and what to do.
///
/// Text mode prints `Error: <message>` and `Help: <help>` on stderr; `--json` prints
/// `{"error": <message>, "errorType": <kind>, "help": <help>, …}` on stdout. Usage errors exit 64,
/// every other failure 1.
struct CommandFailure: Error, CustomStringConvertible {
    /// The stable names of `--json`'s `errorType`, listed in the README's CLI section: scripts may
    /// match on them.
    enum Kind: String, CaseIterable, Sendable {
        /// A flag or argument is malformed or out of range (exit status 64).
        case invalidArgument
        /// `serve`: another process already serves the port.
        case addressInUse
        /// `serve`: the port needs privileges (below 1024).
        case permissionDenied
        /// `serve`: the address is not one of this host's.
        case addressNotAvailable
        /// The host name does not resolve.
        case dnsFailure
        /// The host name resolves only to loopback, private or link-local addresses (NTP).
        case localAddresses
        /// Nothing listens on the server's port (TCP refused, or ICMP port unreachable for NTP).
        case refused
        /// No route to the server's host, or the network is down.
        case unreachable
        /// No (complete) reply within `--timeout`.
        case timeout
        /// The TLS handshake failed (`https://` to a plain-HTTP port, an untrusted certificate).
        case tlsFailure
        /// The server closed the connection before a complete response.
        case connectionClosed
        /// Another failure of the network or the connection.
        case network
        /// The NTP server sent a Kiss-o'-Death (`RATE`, `DENY`, `RSTR`, …).
        case kissOfDeath
        /// The HTTP server answered `429` or `503`: it asks to be asked later.
        case rateLimited
        /// The NTP server says its own clock is not synchronized.
        case unsynchronized
        /// Two different replies came to one NTP request: someone on the path answered too.
        case conflictingReplies
        /// NTS: no reply came back authenticated (altered, forged or stripped replies, or an NTS NAK).
        case unauthenticated
        /// NTS: the key-exchange server refused, or its answer cannot be used.
        case keyExchangeFailed
        /// The samples contradict each other: no majority agrees on an offset.
        case noMajority
        /// The server answered, but without a usable time (a missing or malformed header, a cached
        /// or replayed response, a malformed NTP reply).
        case invalidResponse
        /// Anything else.
        case failed
    }

    /// What kind of failure, for scripts.
    var kind: Kind
    /// What happened, in words.
    var message: String
    /// What to do about it.
    var help: String
    /// The URL a query was about, for `--json`.
    var url: String?

    var description: String { message }

    /// 64 (`EX_USAGE`) for a usage error, 1 for any other failure.
    var status: Int32 { kind == .invalidArgument ? 64 : 1 }

    /// The usage error of a flag or argument.
    static func invalidArgument(_ message: String, help: String) -> CommandFailure {
        CommandFailure(kind: .invalidArgument, message: message, help: help)
    }

    /// The JSON of a failure.
    struct JSON: Encodable {
        /// What happened, in words (the same text the human output prints).
        var error: String
        /// One of ``Kind``'s names.
        var errorType: String
        /// What to do about it.
        var help: String
        /// The URL queried, for `timesync query`.
        var url: String?
    }

    /// Prints the failure: one line of JSON on stdout, or `Error:` and `Help:` lines on stderr.
    func report(json: Bool) {
        if json {
            let object = JSON(error: message, errorType: kind.rawValue, help: help, url: url)
            print((try? compactJSON(object)) ?? #"{"errorType":"failed"}"#)
        } else {
            FileHandle.standardError.write(Data("Error: \(message)\nHelp: \(help)\n".utf8))
        }
    }
}

extension CommandFailure {
    /// The failure a library error means for the user of the CLI.
    /// - Parameters:
    ///   - error: What a library threw.
    ///   - server: The server it was about (`host:port`), for the message; `nil` when there is none.
    /// - Returns: The failure, with a message and what to do.
    static func from(_ error: any Error, server: String? = nil) -> CommandFailure {
        let at = server.map { " \($0)" } ?? ""
        switch error {
        case let failure as CommandFailure:
            return failure
        case let error as NTPClientError:
            return ntpClient(error, at: at)
        case let error as NTPReplyError:
            return ntpReply(error, at: at)
        #if CLI
        case let error as NTSKEError:
            return ntsKeyExchange(error)
        case let error as NTSReplyError:
            if let ntp = error.ntp { return ntpReply(ntp, at: at) }
            return CommandFailure(
                kind: .unauthenticated, message: "no authenticated reply from\(at): \(error)",
                help: error == .negativeAcknowledgment
                    ? "Query again: the next query makes a new key exchange."
                    : "Query again from another network; if it persists, someone on the path alters or forges the server's replies.")
        case let error as NTSKeyFileError:
            return CommandFailure(kind: .failed, message: "\(error)", help: "Check the file: its path, its permissions and its contents.")
        case let error as HTTPTransportError:
            return httpTransport(error)
        #endif
        case let error as URLError:
            return urlError(error, at: at)
        case let error as RoughtimeError:
            switch error {
            case .timeout:
                return CommandFailure(
                    kind: .timeout, message: "\(error)",
                    help: "Check the host, the port and the key (a server drops a request naming another key); raise --timeout.")
            case .badKey:
                return .invalidArgument(
                    "\(error)", help: "A public key is 32 bytes in base64 or hex; a key file holds the base64 seed 'timesync roughtime keygen' writes.")
            case .invalidReport:
                return .invalidArgument("\(error)", help: "Give a report as 'timesync roughtime query --report FILE' writes it.")
            case .requestTooShort:
                return .invalidArgument("\(error)", help: "Requests are at least 1024 bytes: the report holds one that is not, so it proves nothing.")
            case .timeOutOfRange, .truncated, .badFraming, .malformedMessage, .unsortedTags, .missingTag, .badTagLength, .wrongType:
                return CommandFailure(
                    kind: .invalidResponse, message: "the reply of\(at) is not usable: \(error)",
                    help: "Check that the port serves Roughtime; if it does, use another server and tell this one's operator.")
            default:
                return CommandFailure(
                    kind: .unauthenticated, message: "\(error)",
                    help: "The reply did not verify under the key given: check the key; if it persists, the server or the path lies.")
            }
        case let error as SampleError:
            return CommandFailure(
                kind: .invalidResponse, message: "the reply of\(at) cannot be a sample: \(error)",
                help: "Use another server: this one tells a time or an uncertainty no honest server tells.")
        case let error as SampleConsensusError:
            return CommandFailure(
                kind: .noMajority, message: "the samples of\(at) contradict each other: \(error)",
                help: "Query again; if it persists, the server steps its clock or someone tampers with its replies.")
        case let error as HTTPTimeError:
            return httpTime(error, at: at)
        case let error as ServerBindError:
            return bindFailure(error)
        case let error as TimeSynchronizerError:
            return .invalidArgument("\(error)", help: "Give each source once.")
        default:
            return CommandFailure(
                kind: .failed, message: "\(error)", help: "Run with --log-level debug where the command has it, or report the message.")
        }
    }

    private static func ntpClient(_ error: NTPClientError, at: String) -> CommandFailure {
        switch error {
        case .invalidServerAddress:
            return .invalidArgument("\(error)", help: "Give ntp://HOST[:PORT], e.g. ntp://pool.ntp.org or ntp://[::1]:12300 (port 1-65535).")
        case .timeout:
            return CommandFailure(
                kind: .timeout, message: "\(error)",
                help: "Check the host and port, that a firewall lets UDP through both ways, or raise --timeout.")
        case .unreachable:
            return CommandFailure(
                kind: .refused, message: "nothing listens on\(at): its host answered that the UDP port is closed (ICMP port unreachable)",
                help: "Check the port (NTP's is 123), or start an NTP server there (timesync serve --ntp HOST:PORT).")
        case .dnsFailure, .noAddresses:
            return CommandFailure(kind: .dnsFailure, message: "\(error)", help: "Check the host name, and that this machine's DNS works.")
        case .localAddresses:
            return CommandFailure(
                kind: .localAddresses, message: "\(error)",
                help: "For a server on your own network give its IP address, or pass --allow-local-addresses.")
        default:
            return CommandFailure(kind: .unreachable, message: "\(error)", help: "Check the address and this machine's network connection.")
        }
    }

    #if CLI
    private static func ntsKeyExchange(_ error: NTSKEError) -> CommandFailure {
        switch error {
        case .untrustedCertificate:
            return CommandFailure(
                kind: .tlsFailure, message: "\(error)",
                help: "Give the certificate authority that signed the server's certificate (--ca-file FILE), or check that the URL names the host the certificate is for.")
        case .tls, .noApplicationProtocol:
            return CommandFailure(kind: .tlsFailure, message: "\(error)", help: "Check that the port serves NTS-KE (TLS 1.3, ALPN ntske/1; 4460 by default).")
        case .connection:
            return CommandFailure(
                kind: .refused, message: "\(error)",
                help: "Check the host and the NTS-KE port (4460 by default), or start a server (timesync serve --nts-ke HOST:PORT --cert FILE --key FILE).")
        case .timeout:
            return CommandFailure(kind: .timeout, message: "\(error)", help: "Check that the server answers NTS-KE on that port, or raise --timeout.")
        default:
            return CommandFailure(
                kind: .keyExchangeFailed, message: "\(error)", help: "Use another NTS server, or tell its operator what it answered.")
        }
    }

    #endif

    private static func ntpReply(_ error: NTPReplyError, at: String) -> CommandFailure {
        switch error {
        case .kissOfDeath:
            let code = error.kissCode.map { "\($0)" } ?? "?"
            return CommandFailure(
                kind: .kissOfDeath, message: "\(at.isEmpty ? "the server" : String(at.dropFirst())) sent a \(error)",
                help: code == "RATE"
                    ? "Query this server less often, as it asks."
                    : "This server refuses to serve this client (\(code)): use another server.")
        case .unsynchronized:
            return CommandFailure(
                kind: .unsynchronized, message: "\(error)",
                help: "Use another server: this one does not vouch for its clock (on a timesync server, --local-stratum N does).")
        case .conflictingReplies:
            return CommandFailure(
                kind: .conflictingReplies, message: "\(error)",
                help: "Query again from another network; if it persists, someone on the path answers for the server.")
        default:
            return CommandFailure(
                kind: .invalidResponse, message: "the reply of\(at) is not usable: \(error)",
                help: "Check that the port serves NTP.")
        }
    }

    #if CLI
    private static func httpTransport(_ error: HTTPTransportError) -> CommandFailure {
        switch error {
        case .refused:
            return CommandFailure(
                kind: .refused, message: "\(error)",
                help: "Check the URL's port, or start the server (timesync serve --http HOST:PORT serves /time).")
        case .dnsFailure:
            return CommandFailure(kind: .dnsFailure, message: "\(error)", help: "Check the host name, and that this machine's DNS works.")
        case .tlsFailure:
            return CommandFailure(
                kind: .tlsFailure, message: "\(error)",
                help: "For a plain-HTTP server use http://; otherwise check the host name and the server's certificate.")
        case .connectionClosed:
            return CommandFailure(
                kind: .connectionClosed, message: "\(error)", help: "Check that the port serves HTTP, and the scheme (http:// or https://).")
        case .unreachable:
            return CommandFailure(kind: .unreachable, message: "\(error)", help: "Check the address and this machine's network connection.")
        default:
            return CommandFailure(kind: .network, message: "\(error)", help: "Check the address and this machine's network connection.")
        }
    }

    #endif

    /// A URLSession failure (the command built without the CLI trait measures HTTP on URLSession).
    private static func urlError(_ error: URLError, at: String) -> CommandFailure {
        let message = "\(at.isEmpty ? "the request" : "the request to\(at)") failed: \(error.localizedDescription) (URLError \(error.code.rawValue))"
        switch error.code {
        case .cannotConnectToHost:
            return CommandFailure(
                kind: .refused, message: message, help: "Check the URL's port, or start the server (timesync serve --http HOST:PORT serves /time).")
        case .cannotFindHost, .dnsLookupFailed:
            return CommandFailure(kind: .dnsFailure, message: message, help: "Check the host name, and that this machine's DNS works.")
        case .timedOut:
            return CommandFailure(kind: .timeout, message: message, help: "Check that the server answers HTTP at that URL, or raise --timeout.")
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate, .serverCertificateNotYetValid,
            .serverCertificateHasUnknownRoot, .clientCertificateRejected:
            return CommandFailure(
                kind: .tlsFailure, message: message, help: "For a plain-HTTP server use http://; otherwise check the host name and the server's certificate.")
        case .networkConnectionLost, .badServerResponse, .zeroByteResource:
            return CommandFailure(
                kind: .connectionClosed, message: message, help: "Check that the port serves HTTP, and the scheme (http:// or https://).")
        case .notConnectedToInternet, .cannotLoadFromNetwork, .internationalRoamingOff, .dataNotAllowed:
            return CommandFailure(kind: .unreachable, message: message, help: "Check the address and this machine's network connection.")
        case .badURL, .unsupportedURL:
            return .invalidArgument(message, help: "Give http://HOST[:PORT][/PATH] or https://….")
        default:
            return CommandFailure(kind: .network, message: message, help: "Check the address and this machine's network connection.")
        }
    }

    private static func httpTime(_ error: HTTPTimeError, at: String) -> CommandFailure {
        switch error {
        case .invalidURL, .invalidArgument:
            return .invalidArgument("\(error)", help: "Give http://HOST[:PORT][/PATH] or https://….")
        case .timeout:
            return CommandFailure(
                kind: .timeout, message: "\(error)", help: "Check that the server answers HTTP at that URL, or raise --timeout.")
        case .retryLater:
            return CommandFailure(
                kind: .rateLimited, message: "\(error)", help: "Wait as long as the server asks (its Retry-After) before querying it again.")
        case .inconsistentSamples:
            return CommandFailure(
                kind: .noMajority, message: "\(error)",
                help: "Query again; if it persists, the server steps its clock or its responses are replayed.")
        default:
            return CommandFailure(
                kind: .invalidResponse, message: "the response of\(at) has no usable time: \(error)",
                help: "Check that the URL is a page of the server itself (not a cache); any server's Date header will do (--date-only).")
        }
    }

    /// A server that could not bind its address: what to do depends only on why.
    private static func bindFailure(_ error: ServerBindError) -> CommandFailure {
        let message = error.description
        switch error {
        case .addressInUse:
            return addressInUse(protocol: error.transport, host: error.host, port: error.port, message: message)
        case .permissionDenied:
            return CommandFailure(
                kind: .permissionDenied, message: message,
                help: "Choose a port above 1023, or give the process the right to bind it (CAP_NET_BIND_SERVICE).")
        default:
            return CommandFailure(
                kind: .addressNotAvailable, message: message,
                help: "Give an address of this host, or 0.0.0.0 (every IPv4 interface) or :: (every interface).")
        }
    }

    private static func addressInUse(protocol name: String, host: String, port: Int, message: String) -> CommandFailure {
        let listing = name == "UDP" ? "ss -lunp" : "ss -ltnp"
        return CommandFailure(
            kind: .addressInUse, message: message,
            help: "Stop the process that serves \(name) port \(port) (\(listing) 'sport = :\(port)' names it), or choose another port.")
    }
}

#if CLI
extension CommandFailure {
    /// ``status`` as ArgumentParser's exit code.
    var exitCode: ExitCode { ExitCode(status) }
}
#endif
