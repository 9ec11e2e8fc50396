/// The association mode of an NTP packet (RFC 5905 §7.3).
public enum NTPMode: UInt8, Sendable, Hashable, Codable, CaseIterable {
    /// Reserved.
    case reserved = 0
    /// Symmetric active.
    case symmetricActive = 1
    /// Symmetric passive.
    case symmetricPassive = 2
    /// A client request.
    case client = 3
    /// A server reply.
    case server = 4
    /// Broadcast.
    case broadcast = 5
    /// NTP control message (`ntpq`).
    case control = 6
    /// Reserved for private use (`ntpdc`).
    case privateUse = 7
}
