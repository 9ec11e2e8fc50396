/// Why an NTP server did not answer a datagram.
public enum NTPServerDropReason: String, Sendable, Hashable, CaseIterable {
    /// Not an NTP packet.
    case malformed
    /// Not a client (mode 3) request.
    case notClientMode
    /// A version other than 1–4.
    case unsupportedVersion
    /// The client is over its rate limit and this request is not due a kiss (or the server never
    /// kisses).
    case rateLimited
    /// The reply would be larger than the request.
    case replyTooLarge
    /// Larger than `NTPServerResponder.maximumRequestSize`: ignored, never parsed (a receive
    /// buffer may have cut it, and what is left could parse as a request).
    case oversize
    /// NTS fields that break the protocol's rules (RFC 8915 §5.7), or NTS asked of a server that has none.
    case malformedNTS
    /// An NTS request whose Authenticator does not verify with the key in its cookie: altered or forged.
    case unauthenticated
}
