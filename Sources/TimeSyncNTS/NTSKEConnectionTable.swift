#if NTS
import TimeSync
import TimeSyncServerSupport

/// Whom a key-exchange connection counts against for
/// ``NTSKEServer/Configuration/maximumConnectionsPerAddress``: an IPv4 address, or an IPv6 client's
/// prefix (``NTSKEServer/Configuration/ipv6ClientPrefixLength``).
package typealias NTSKEClientAddress = ConnectionClientAddress

/// The open connections of a key-exchange server: the two caps of ``NTSKEServer/Configuration``; a
/// connection still in its key exchange is closable for room, one being answered is not.
package typealias NTSKEConnectionTable = ConnectionTable

extension NTPRateLimitKey {
    /// The rate limiter's key for a client: its IPv4 address, or its IPv6 prefix.
    package init(_ address: ConnectionClientAddress) {
        switch address {
        case .v4(let networkOrder): self.init(ipv4: UInt32(bigEndian: networkOrder))
        case .v6(let high, let low): self.init(high: high, low: low)
        }
    }
}
#endif
