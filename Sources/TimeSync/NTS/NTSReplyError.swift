/// Why a reply to an NTS request was not used. Nothing but a reply that passed every check changes
/// any state: a rejected one is dropped and counted.
///
/// Errors compare equal when they are the same kind of failure (`error == .authenticationFailed`);
/// an NTP-level rejection compares by its ``ntp`` error.
public struct NTSReplyError: Error, Sendable, Hashable, CustomStringConvertible {
    enum Code: Sendable, Hashable {
        case ntp, unauthenticated, uniqueIdentifierMismatch, authenticationFailed, negativeAcknowledgment
    }

    let code: Code
    /// For NTP-level rejections (origin mismatch, Kiss-o'-Death, …): the NTP error.
    public let ntp: NTPReplyError?
    /// Details.
    public let detail: String

    init(_ code: Code, _ detail: String = "") {
        self.code = code
        self.ntp = nil
        self.detail = detail
    }

    package init(ntp: NTPReplyError) {
        self.code = .ntp
        self.ntp = ntp
        self.detail = ""
    }

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
        case .ntp: ntp == .originMismatch || ntp == .duplicate || ntp == .malformedPacket
        }
    }

    public static func == (lhs: NTSReplyError, rhs: NTSReplyError) -> Bool { lhs.code == rhs.code && lhs.ntp == rhs.ntp }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(ntp)
    }

    /// A short name for counting: `authenticationFailed`, `originMismatch`, …
    public var reason: String {
        switch code {
        case .ntp: ntp.map { "\($0.code)" } ?? "ntp"
        case .unauthenticated: "unauthenticated"
        case .uniqueIdentifierMismatch: "uniqueIdentifierMismatch"
        case .authenticationFailed: "authenticationFailed"
        case .negativeAcknowledgment: "negativeAcknowledgment"
        }
    }

    public var description: String {
        let suffix = detail.isEmpty ? "" : " (\(detail))"
        switch code {
        case .ntp: return ntp.map(String.init(describing:)) ?? "NTP reply rejected"
        case .unauthenticated: return "unauthenticated reply to an NTS request" + suffix
        case .uniqueIdentifierMismatch: return "the reply's Unique Identifier is not the request's (stray or spoofed)"
        case .authenticationFailed: return "the reply's NTS authenticator does not verify: altered in transit or forged" + suffix
        case .negativeAcknowledgment: return "NTS NAK: the server could not use the cookie; a new key exchange is needed"
        }
    }
}
