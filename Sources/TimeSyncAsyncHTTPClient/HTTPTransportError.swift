#if AsyncHTTPClient
import AsyncHTTPClient
import NIOCore
import NIOPosix
import NIOSSL
import TimeSync

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Why an HTTP exchange got no response at all: the connection, not the response's contents.
///
/// `HTTPTimeSource` throws it for what goes wrong below HTTP (a refused connection, a name that
/// does not resolve, a failed TLS handshake); what is wrong with a response that did arrive is an
/// `HTTPTimeError`. Match on ``code`` (`error.code == .refused`); ``server`` and ``detail`` say more,
/// for people.
public struct HTTPTransportError: CodedError {
    /// The kinds of failed connection.
    public enum Code: Sendable, Hashable {
        /// The server's host refused the connection: nothing accepts connections on its port.
        case refused
        /// No route to the server's host, or the network is down.
        case unreachable
        /// The host name does not resolve.
        case dnsFailure
        /// The TLS handshake failed: the server speaks no TLS on this port (an `https://` URL for a
        /// plain-HTTP port), or its certificate is not trusted for the host.
        case tlsFailure
        /// The server closed the connection before a complete response.
        case connectionClosed
        /// Any other failure of the connection.
        case network
    }

    /// Which kind of failure this is.
    public let code: Code
    /// The server (`host:port`).
    public let server: String
    /// What the network stack said, in words.
    public let detail: String
    /// What AsyncHTTPClient or SwiftNIO threw, when this error classifies one.
    public let underlying: (any Error)?

    init(_ code: Code, server: String, detail: String = "", underlying: (any Error)? = nil) {
        self.code = code
        self.server = server
        self.detail = detail
        self.underlying = underlying
    }

    /// The server's host refused the connection: nothing accepts connections on its port.
    public static let refused = HTTPTransportError(.refused, server: "")
    /// No route to the server's host, or the network is down.
    public static let unreachable = HTTPTransportError(.unreachable, server: "")
    /// The host name does not resolve.
    public static let dnsFailure = HTTPTransportError(.dnsFailure, server: "")
    /// The TLS handshake failed: the server speaks no TLS on this port (an `https://` URL for a
    /// plain-HTTP port), or its certificate is not trusted for the host.
    public static let tlsFailure = HTTPTransportError(.tlsFailure, server: "")
    /// The server closed the connection before a complete response.
    public static let connectionClosed = HTTPTransportError(.connectionClosed, server: "")
    /// Any other failure of the connection.
    public static let network = HTTPTransportError(.network, server: "")

    public var description: String {
        let suffix = detail.isEmpty ? "" : " (\(detail))"
        switch code {
        case .refused: return "\(server) refused the connection: nothing accepts HTTP connections on that port"
        case .unreachable: return "\(server) is unreachable: no route to its host" + suffix
        case .dnsFailure: return "the host name of \(server) does not resolve" + suffix
        case .tlsFailure: return "the TLS handshake with \(server) failed" + suffix
        case .connectionClosed: return "\(server) closed the connection before a complete response"
        case .network: return "the connection to \(server) failed" + suffix
        }
    }

    /// The transport error behind an AsyncHTTPClient or SwiftNIO error, or `nil` for an error that
    /// is not about the connection.
    /// - Parameters:
    ///   - error: What the HTTP client threw.
    ///   - server: The server, `host:port`, for the message.
    /// - Returns: The classified error, with `error` as its ``underlying`` one.
    static func classifying(_ error: any Error, server: String) -> HTTPTransportError? {
        if let error = error as? HTTPTransportError { return error }
        return classified(error, server: server).map {
            HTTPTransportError($0.code, server: $0.server, detail: $0.detail, underlying: error)
        }
    }

    /// The kind, server and detail of ``classifying(_:server:)``'s error.
    private static func classified(_ error: any Error, server: String) -> HTTPTransportError? {
        switch error {
        case let error as HTTPTransportError:
            return error
        case let error as IOError:
            return fromErrno(error.errnoCode, server: server)
        case let error as NIOConnectionError:
            if let failure = error.connectionErrors.first {
                return classified(failure.error, server: server) ?? HTTPTransportError(.network, server: server, detail: "\(failure.error)")
            }
            let dns = error.dnsAError ?? error.dnsAAAAError
            return HTTPTransportError(.dnsFailure, server: server, detail: dns.map { "\($0)" } ?? "")
        case is SocketAddressError:
            return HTTPTransportError(.dnsFailure, server: server, detail: "\(error)")
        case let error as NIOSSLError:
            return HTTPTransportError(.tlsFailure, server: server, detail: tlsReason(error))
        case let error as NIOSSLExtraError:
            return HTTPTransportError(.tlsFailure, server: server, detail: "\(error)")
        case let error as HTTPClientError:
            switch error {
            case .remoteConnectionClosed: return HTTPTransportError(.connectionClosed, server: server)
            case .tlsHandshakeTimeout: return HTTPTransportError(.tlsFailure, server: server, detail: "the handshake timed out")
            default: return nil
            }
        case let error as ChannelError:
            switch error {
            case .eof, .ioOnClosedChannel, .outputClosed, .inputClosed, .alreadyClosed:
                return HTTPTransportError(.connectionClosed, server: server)
            default: return nil
            }
        default:
            return nil
        }
    }

    private static func fromErrno(_ code: Int32, server: String) -> HTTPTransportError {
        switch code {
        case ECONNREFUSED: return HTTPTransportError(.refused, server: server)
        case EHOSTUNREACH, ENETUNREACH, ENETDOWN, EHOSTDOWN:
            return HTTPTransportError(.unreachable, server: server, detail: String(cString: strerror(code)))
        case ECONNRESET, EPIPE: return HTTPTransportError(.connectionClosed, server: server)
        default: return HTTPTransportError(.network, server: server, detail: String(cString: strerror(code)))
        }
    }

    /// The handshake's failure in words: a server that answers in plain text instead of TLS, an
    /// untrusted certificate, or BoringSSL's reason.
    private static func tlsReason(_ error: NIOSSLError) -> String {
        let text = "\(error)"
        if text.contains("WRONG_VERSION_NUMBER") || text.contains("HTTP_REQUEST") {
            return "the server answers without TLS on this port: it may serve plain HTTP"
        }
        if text.contains("CERTIFICATE_VERIFY_FAILED") {
            return "the server's certificate is not trusted for this host"
        }
        if case .uncleanShutdown = error { return "the server closed the connection during the handshake" }
        return text
    }
}
#endif
