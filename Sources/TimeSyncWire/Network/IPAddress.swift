#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv4 or IPv6 address, as the bytes on the wire, and where it leads: the open internet, or a
/// network no public name should point into (loopback, private, link-local).
public struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    /// The address family.
    public enum Family: Sendable, Hashable {
        /// IPv4: 4 bytes.
        case v4
        /// IPv6: 16 bytes.
        case v6
    }

    /// The address in network byte order: 4 bytes for IPv4, 16 for IPv6.
    public let bytes: [UInt8]

    /// An address from its bytes in network order.
    /// - Parameter bytes: 4 bytes (IPv4) or 16 (IPv6); any other count gives `nil`.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// Parses an IP literal: dotted IPv4 (`192.0.2.1`) or IPv6 text (`2001:db8::1`, `::ffff:192.0.2.1`),
    /// without brackets, zone or port. Anything else, a host name included, gives `nil`.
    public init?(_ text: String) {
        // A C string ends at the first NUL: "127.0.0.1\0evil" must not read as 127.0.0.1.
        guard !text.utf8.contains(0) else { return nil }
        guard text.utf8.count <= 45, !text.isEmpty else { return nil }
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            bytes = withUnsafeBytes(of: &v4) { Array($0) }
            return
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            bytes = withUnsafeBytes(of: &v6) { Array($0) }
            return
        }
        return nil
    }

    /// Whether it is an IPv4 or an IPv6 address.
    public var family: Family { bytes.count == 4 ? .v4 : .v6 }

    /// Dotted decimal for IPv4; for IPv6 the canonical text (RFC 5952: lower case, the longest run of
    /// zero groups as `::`).
    public var description: String {
        if bytes.count == 4 { return bytes.map(String.init).joined(separator: ".") }
        var groups: [UInt16] = []
        for index in stride(from: 0, to: 16, by: 2) { groups.append(UInt16(bytes[index]) << 8 | UInt16(bytes[index + 1])) }
        // The longest run of two or more zero groups, the first of equals.
        var best: Range<Int>?
        var start: Int?
        for index in 0...8 {
            if index < 8, groups[index] == 0 {
                if start == nil { start = index }
            } else if let run = start {
                if index - run >= 2, index - run > (best?.count ?? 0) { best = run..<index }
                start = nil
            }
        }
        func hex(_ range: Range<Int>) -> String { groups[range].map { String($0, radix: 16) }.joined(separator: ":") }
        guard let best else { return hex(0..<8) }
        return hex(0..<best.lowerBound) + "::" + hex(best.upperBound..<8)
    }
}
