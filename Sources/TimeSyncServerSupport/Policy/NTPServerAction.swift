/// What an NTP server does with one datagram: the answer written into the reply buffer, and its length.
package enum NTPServerAction: Sendable, Hashable {
    /// Send the reply, `length` bytes.
    case reply(length: Int)
    /// Send the Kiss-o'-Death `RATE`, `length` bytes: the client is over its limit.
    case kiss(length: Int)
    /// Send the NTS-authenticated reply (extension fields included), `length` bytes.
    case authenticatedReply(length: Int)
    /// Send the NTS NAK (Kiss-o'-Death `NTSN`), `length` bytes: the request's cookie cannot be used.
    case negativeAcknowledgment(length: Int)
    /// Send nothing, for this reason.
    case drop(NTPServerDropReason)

    /// The bytes to send; 0 for a drop.
    package var length: Int {
        switch self {
        case .reply(let length), .kiss(let length), .authenticatedReply(let length), .negativeAcknowledgment(let length): length
        case .drop: 0
        }
    }
}
