import TimeSync
import TimeSyncWire
import TimeSyncServerSupport

/// What an NTP server's request policy answered, decoded: `NTPServerResponder.respond` writes its
/// answer into a buffer, and a test reads it back as a packet.
package enum ServedDatagram: Sendable, Hashable {
    case reply(NTPPacket)
    case kiss(NTPPacket)
    case authenticatedReply(NTPPacket)
    case negativeAcknowledgment(NTPPacket)
    case drop(NTPServerDropReason)
}

extension NTPServerResponder {
    /// The request policy on `bytes`, its answer decoded (a packet that does not decode is a test failure
    /// that shows as a drop for `.malformed`).
    package static func serve(
        _ bytes: [UInt8], policy: NTPServerPolicy, receivedAt: UnixTime, admit: () -> NTPRateLimitDecision, minimumPoll: Int8,
        authenticator: (any NTPRequestAuthenticator)? = nil, transmitAt: () -> UnixTime
    ) -> ServedDatagram {
        var reply = [UInt8](repeating: 0xEE, count: max(bytes.count, NTPPacket.headerSize))
        let action = bytes.withUnsafeBytes { request in
            reply.withUnsafeMutableBytes { out in
                respond(
                    to: request, into: out, policy: policy, receivedAt: receivedAt, admit: admit, minimumPoll: minimumPoll,
                    authenticator: authenticator, transmitAt: transmitAt)
            }
        }
        func decoded() -> NTPPacket? { try? NTPPacket(decoding: reply.prefix(action.length)) }
        switch action {
        case .drop(let reason): return .drop(reason)
        case .reply: return decoded().map(ServedDatagram.reply) ?? .drop(.malformed)
        case .kiss: return decoded().map(ServedDatagram.kiss) ?? .drop(.malformed)
        case .authenticatedReply: return decoded().map(ServedDatagram.authenticatedReply) ?? .drop(.malformed)
        case .negativeAcknowledgment: return decoded().map(ServedDatagram.negativeAcknowledgment) ?? .drop(.malformed)
        }
    }
}
