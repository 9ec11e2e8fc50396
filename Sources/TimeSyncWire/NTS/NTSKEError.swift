import TimeSync

/// Why an NTS key exchange gave no keys and cookies: the peer's Error record, a malformed or
/// unacceptable message, or the TLS connection's failure.
///
/// Match on ``code`` (`error.code == .untrustedCertificate`); ``detail`` says more, for people.
public struct NTSKEError: CodedError {
    /// The kinds of failed key exchange.
    public enum Code: Sendable, Hashable {
        /// The peer answered with an Error record (see ``NTSKEError/serverCode``).
        case serverError
        /// The records do not parse, or break the protocol's rules (a duplicate record, a bad length).
        case malformedMessage
        /// The message is longer than this side accepts.
        case messageTooLarge
        /// The peer sent a critical record of a type this side does not know.
        case unrecognizedCriticalRecord
        /// No protocol both sides speak (NTPv4 is the only one).
        case unsupportedProtocol
        /// No AEAD algorithm both sides support (AES-SIV-CMAC-256 is this side's).
        case unsupportedAlgorithm
        /// The server sent no cookie (or none is left).
        case noCookies
        /// The NTPv4 Server or Port Negotiation record is not a host name, an address or a port.
        case badServerNegotiation
        /// The key exchange did not finish within its deadline.
        case timeout
        /// The TCP connection failed (refused, reset, no route).
        case connection
        /// The server's certificate is not trusted (unknown issuer, wrong name, expired).
        case untrustedCertificate
        /// The TLS handshake or connection failed for another reason (not TLS 1.3, a protocol error).
        case tls
        /// The connection closed before End of Message.
        case incompleteMessage
        /// The server did not agree to the `ntske/1` application protocol (ALPN).
        case noApplicationProtocol
    }

    /// Which kind of failure this is.
    public let code: Code
    /// Details: the server, the record, the TLS stack's message.
    public let detail: String
    /// For `.serverError`: the code of the Error record the server sent.
    public let serverCode: NTSKEErrorCode?
    /// For a failed connection or TLS handshake: what SwiftNIO or swift-nio-ssl threw.
    public let underlying: (any Error)?

    package init(_ code: Code, _ detail: String = "", serverCode: NTSKEErrorCode? = nil, underlying: (any Error)? = nil) {
        self.code = code
        self.detail = detail
        self.serverCode = serverCode
        self.underlying = underlying
    }

    /// Returns the error with `detail` put in front of its own (the server's name, say).
    public func prefixed(_ context: String) -> NTSKEError {
        NTSKEError(code, detail.isEmpty ? context : "\(context): \(detail)", serverCode: serverCode, underlying: underlying)
    }

    /// The peer answered with an Error record (see ``serverCode``).
    public static let serverError = NTSKEError(.serverError)
    /// The records do not parse, or break the protocol's rules (a duplicate record, a bad length).
    public static let malformedMessage = NTSKEError(.malformedMessage)
    /// The message is longer than this side accepts.
    public static let messageTooLarge = NTSKEError(.messageTooLarge)
    /// The peer sent a critical record of a type this side does not know.
    public static let unrecognizedCriticalRecord = NTSKEError(.unrecognizedCriticalRecord)
    /// No protocol both sides speak (NTPv4 is the only one).
    public static let unsupportedProtocol = NTSKEError(.unsupportedProtocol)
    /// No AEAD algorithm both sides support (AES-SIV-CMAC-256 is this side's).
    public static let unsupportedAlgorithm = NTSKEError(.unsupportedAlgorithm)
    /// The server sent no cookie.
    public static let noCookies = NTSKEError(.noCookies)
    /// The NTPv4 Server or Port Negotiation record is not a host name, an address or a port.
    public static let badServerNegotiation = NTSKEError(.badServerNegotiation)
    /// The key exchange did not finish within its deadline.
    public static let timeout = NTSKEError(.timeout)
    /// The TCP connection failed (refused, reset, no route).
    public static let connection = NTSKEError(.connection)
    /// The server's certificate is not trusted (unknown issuer, wrong name, expired).
    public static let untrustedCertificate = NTSKEError(.untrustedCertificate)
    /// The TLS handshake or connection failed for another reason (not TLS 1.3, a protocol error).
    public static let tls = NTSKEError(.tls)
    /// The connection closed before End of Message.
    public static let incompleteMessage = NTSKEError(.incompleteMessage)
    /// The server did not agree to the `ntske/1` application protocol (ALPN).
    public static let noApplicationProtocol = NTSKEError(.noApplicationProtocol)

    public var description: String {
        let suffix = detail.isEmpty ? "" : ": \(detail)"
        switch code {
        case .serverError: return "NTS-KE server refused: \(serverCode.map(String.init(describing:)) ?? "error")" + suffix
        case .malformedMessage: return "malformed NTS-KE message" + suffix
        case .messageTooLarge: return "NTS-KE message too large" + suffix
        case .unrecognizedCriticalRecord: return "NTS-KE message has a critical record this side does not know" + suffix
        case .unsupportedProtocol: return "NTS-KE: no protocol in common (NTPv4 needed)" + suffix
        case .unsupportedAlgorithm: return "NTS-KE: no AEAD algorithm in common (AES-SIV-CMAC-256 needed)" + suffix
        case .noCookies: return "NTS-KE server sent no cookie" + suffix
        case .badServerNegotiation: return "NTS-KE server named an unusable NTP server or port" + suffix
        case .timeout: return "NTS key exchange timed out" + suffix
        case .connection: return "cannot connect to the NTS-KE server" + suffix
        case .untrustedCertificate:
            return "the NTS-KE server's certificate is not trusted" + suffix
        case .tls: return "NTS-KE TLS failure" + suffix
        case .incompleteMessage: return "NTS-KE server closed the connection before End of Message" + suffix
        case .noApplicationProtocol: return "the server does not speak NTS-KE (ALPN ntske/1 not agreed)" + suffix
        }
    }
}
