import TimeSyncWire

/// The verdict on a datagram an NTP server received.
package enum NTPServerCheck: Sendable, Hashable {
    /// A client request to answer.
    case answer(NTPPacket)
    /// Not answered, and why.
    case drop(NTPServerDropReason)
}
