import Foundation
import TimeSync
import TimeSyncServerSupport
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

/// What HTTP failures (AsyncHTTPClient's or URLSession's) and a server's bind failures mean for the
/// user of the CLI.
extension CommandFailure {
    #if CLI
    static func httpTransport(_ error: HTTPTransportError) -> CommandFailure {
        switch error.code {
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
    static func urlError(_ error: URLError, at: String) -> CommandFailure {
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

    static func httpTime(_ error: HTTPTimeError, at: String) -> CommandFailure {
        switch error.code {
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
    static func bindFailure(_ error: ServerBindError) -> CommandFailure {
        let message = error.description
        switch error.code {
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

    static func addressInUse(protocol name: String, host: String, port: Int, message: String) -> CommandFailure {
        let listing = name == "UDP" ? "ss -lunp" : "ss -ltnp"
        return CommandFailure(
            kind: .addressInUse, message: message,
            help: "Stop the process that serves \(name) port \(port) (\(listing) 'sport = :\(port)' names it), or choose another port.")
    }
}
