import TimeSync

/// Why an NTP exchange produced no reply (rejected replies throw `NTPReplyError` instead).
///
/// Match on ``code`` (`error.code == .timeout`); ``detail`` says more, for people.
public struct NTPClientError: CodedError {
    /// The kinds of failed exchange.
    public enum Code: Sendable, Hashable {
        /// No acceptable reply within the timeout; `NTPClientError.detail` says how long was waited.
        case timeout
        /// The host name could not be resolved.
        case dnsFailure
        /// The host name resolved to no usable address.
        case noAddresses
        /// The host name resolved only to loopback, private or link-local addresses, which a name is not
        /// used with unless its `AddressPolicy` allows them (an IP literal or `localhost` always works).
        case localAddresses
        /// The request could not be sent (no route, network down, …).
        case network
        /// A server address that does not parse (`host`, `host:port`, `[v6]:port`, `ntp://host:port`).
        case invalidServerAddress
        /// The server's host answered that nothing listens on the port (ICMP port unreachable).
        case unreachable
    }

    /// Which kind of failure this is.
    public let code: Code
    /// Details: the host name, the resolver's or the socket's message.
    public let detail: String

    package init(_ code: Code, _ detail: String = "") {
        self.code = code
        self.detail = detail
    }

    /// No acceptable reply within the timeout; ``detail`` says how long was waited.
    public static let timeout = NTPClientError(.timeout)
    /// The host name could not be resolved.
    public static let dnsFailure = NTPClientError(.dnsFailure)
    /// The host name resolved to no usable address.
    public static let noAddresses = NTPClientError(.noAddresses)
    /// The host name resolved only to loopback, private or link-local addresses, which a name is not
    /// used with unless its `AddressPolicy` allows them (an IP literal or `localhost` always works).
    public static let localAddresses = NTPClientError(.localAddresses)
    /// The request could not be sent (no route, network down, …).
    public static let network = NTPClientError(.network)
    /// The server's host answered that nothing listens on the port (ICMP port unreachable).
    public static let unreachable = NTPClientError(.unreachable)
    /// A server address that does not parse (`host`, `host:port`, `[v6]:port`, `ntp://host:port`).
    public static let invalidServerAddress = NTPClientError(.invalidServerAddress)

    public var description: String {
        let suffix = detail.isEmpty ? "" : ": \(detail)"
        switch code {
        case .timeout: return "no NTP reply" + (detail.hasPrefix("from ") ? " \(detail)" : suffix)
        case .unreachable: return "nothing listens on the server's NTP port" + suffix
        case .dnsFailure: return "DNS resolution failed" + suffix
        case .noAddresses: return "host has no IPv4 or IPv6 address" + suffix
        case .localAddresses:
            return "host name resolved only to local addresses" + suffix
                + "; a name is used only with public addresses: give an IP literal, or allow local addresses (AddressPolicy.allowingLocal)"
        case .network: return "network error" + suffix
        case .invalidServerAddress: return "invalid NTP server address" + suffix
        }
    }
}
