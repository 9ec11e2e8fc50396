/// What an NTP server does with one datagram.
package enum NTPServerAction: Sendable, Hashable {
    /// Send this reply.
    case reply(NTPPacket)
    /// Send this Kiss-o'-Death `RATE`: the client is over its limit.
    case kiss(NTPPacket)
    /// Send this NTS-authenticated reply (extension fields included).
    case authenticatedReply(NTPPacket)
    /// Send this NTS NAK (Kiss-o'-Death `NTSN`): the request's cookie cannot be used.
    case negativeAcknowledgment(NTPPacket)
    /// Send nothing, for this reason.
    case drop(NTPServerDropReason)
}
