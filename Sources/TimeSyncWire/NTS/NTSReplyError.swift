import TimeSync

/// Why a reply to an NTS request was not used. Nothing but a reply that passed every check changes
/// any state: a rejected one is dropped and counted.
///
/// Match on ``code``: `error.code == .authenticationFailed`, or `error.code == .ntp(.kissOfDeath)`
/// for an NTP-level rejection, whose `NTPReplyError` is the ``underlying`` error.
public struct NTSReplyError: CodedError {
    /// The kinds of rejected NTS reply.
    public enum Code: Sendable, Hashable {
        /// The reply failed a check of plain NTP (origin mismatch, Kiss-o'-Death, …): the
        /// `NTPReplyError`'s code.
        case ntp(NTPReplyError.Code)
        /// The reply carries no NTS authentication (no Unique Identifier or Authenticator field, or
        /// fields after the Authenticator): anyone could have sent it.
        case unauthenticated
        /// The reply echoes another request's Unique Identifier.
        case uniqueIdentifierMismatch
        /// The Authenticator does not open with the server-to-client key: the reply was altered in
        /// transit, or forged.
        case authenticationFailed
        /// NTS NAK (Kiss-o'-Death `NTSN`): the server could not use the cookie; a new key exchange is
        /// due.
        case negativeAcknowledgment
    }

    /// Which kind of rejection this is.
    public let code: Code
    /// For an NTP-level rejection: the `NTPReplyError`.
    public let underlying: (any Error)?
    /// Details.
    public let detail: String

    init(_ code: Code, _ detail: String = "") {
        self.code = code
        self.underlying = nil
        self.detail = detail
    }

    package init(ntp: NTPReplyError) {
        self.code = .ntp(ntp.code)
        self.underlying = ntp
        self.detail = ""
    }

    /// For an NTP-level rejection: the NTP error (its kiss code, its leap indicator).
    package var ntp: NTPReplyError? { underlying as? NTPReplyError }

    /// The reply carries no NTS authentication (no Unique Identifier or Authenticator field, or fields
    /// after the Authenticator): anyone could have sent it.
    public static let unauthenticated = NTSReplyError(.unauthenticated)
    /// The reply echoes another request's Unique Identifier.
    public static let uniqueIdentifierMismatch = NTSReplyError(.uniqueIdentifierMismatch)
    /// The Authenticator does not open with the server-to-client key: the reply was altered in
    /// transit, or forged.
    public static let authenticationFailed = NTSReplyError(.authenticationFailed)
    /// NTS NAK (Kiss-o'-Death `NTSN`): the server could not use the cookie; a new key exchange is due.
    public static let negativeAcknowledgment = NTSReplyError(.negativeAcknowledgment)

    /// Whether this rejection leaves the request waiting for its genuine reply (a stray, altered,
    /// forged or unauthenticated datagram, or an NTS NAK, which anyone could send) rather than
    /// ending the exchange.
    public var isDroppedDatagram: Bool {
        switch code {
        case .unauthenticated, .uniqueIdentifierMismatch, .authenticationFailed, .negativeAcknowledgment: true
        case .ntp(let ntp): ntp == .originMismatch || ntp == .duplicate || ntp == .malformedPacket
        }
    }

    /// A short name for counting: `authenticationFailed`, `originMismatch`, …
    public var reason: String {
        switch code {
        case .ntp(let ntp): "\(ntp)"
        case .unauthenticated: "unauthenticated"
        case .uniqueIdentifierMismatch: "uniqueIdentifierMismatch"
        case .authenticationFailed: "authenticationFailed"
        case .negativeAcknowledgment: "negativeAcknowledgment"
        }
    }

    public var description: String {
        let suffix = detail.isEmpty ? "" : " (\(detail))"
        switch code {
        case .ntp: return underlying.map(String.init(describing:)) ?? "NTP reply rejected"
        case .unauthenticated: return "unauthenticated reply to an NTS request" + suffix
        case .uniqueIdentifierMismatch: return "the reply's Unique Identifier is not the request's (stray or spoofed)"
        case .authenticationFailed: return "the reply's NTS authenticator does not verify: altered in transit or forged" + suffix
        case .negativeAcknowledgment: return "NTS NAK: the server could not use the cookie; a new key exchange is needed"
        }
    }
}
