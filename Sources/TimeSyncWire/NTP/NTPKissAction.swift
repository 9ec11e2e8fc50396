/// What a client does about a Kiss-o'-Death reply (RFC 5905 §7.4).
public enum NTPKissAction: Sendable, Hashable {
    /// `RATE`: lengthen the poll interval for this server.
    case reducePollRate
    /// `DENY` or `RSTR`: stop using this server.
    case stopUsingServer
    /// Any other code: ignore the reply, keep polling as before.
    case discardReply
}
