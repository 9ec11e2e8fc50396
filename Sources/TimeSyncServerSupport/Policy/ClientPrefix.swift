/// How every server counts its clients for rate limits and connection caps: an IPv4 address alone, an
/// IPv6 address by its first ``defaultIPv6Length`` bits (one host usually owns a whole /64, so
/// counting single IPv6 addresses would give it 2⁶⁴ shares). The SNTP, NTS, Roughtime and HTTP
/// servers all count through ``ipv6(high:low:length:)``.
package enum ClientPrefix {
    /// The IPv6 prefix a client is counted by unless configured otherwise: 64.
    package static let defaultIPv6Length = 64
    /// The prefix lengths a server accepts: 32 (a whole provider's customer) to 128 (one address).
    package static let ipv6Lengths = 32...128

    /// An IPv6 address's bits with all but the first `length` cleared (`length` brought into
    /// ``ipv6Lengths``).
    /// - Parameters:
    ///   - high: The address's first 64 bits.
    ///   - low: Its last 64 bits.
    ///   - length: The prefix length.
    /// - Returns: The prefix, as an address's two halves.
    @inline(__always)
    package static func ipv6(high: UInt64, low: UInt64, length: Int) -> (high: UInt64, low: UInt64) {
        let length = min(max(length, ipv6Lengths.lowerBound), ipv6Lengths.upperBound)
        if length >= 128 { return (high, low) }
        if length >= 64 { return (high, length == 64 ? 0 : low & ~(UInt64.max >> (length - 64))) }
        return (high & ~(UInt64.max >> length), 0)
    }
}
