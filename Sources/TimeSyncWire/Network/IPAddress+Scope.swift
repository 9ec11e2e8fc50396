extension IPAddress {
    /// Where an address leads.
    public enum Scope: Sendable, Hashable, CustomStringConvertible {
        /// The open internet (or a documentation range, which leads nowhere local).
        case global
        /// This host: `127.0.0.0/8`, `::1`.
        case loopback
        /// A private network: `10/8`, `172.16/12`, `192.168/16`, carrier-grade NAT `100.64/10`,
        /// unique-local `fc00::/7`, site-local `fec0::/10`.
        case privateNetwork
        /// The local link: `169.254/16`, `fe80::/10`.
        case linkLocal
        /// No host: `0.0.0.0/8`, `::`, multicast, broadcast, the reserved `240/4`.
        case unusable

        public var description: String {
            switch self {
            case .global: "public"
            case .loopback: "loopback"
            case .privateNetwork: "private"
            case .linkLocal: "link-local"
            case .unusable: "not a host"
            }
        }
    }

    /// Where the address leads. An IPv4 address carried in IPv6 — mapped (`::ffff:0:0/96`) or through
    /// NAT64's well-known prefix (`64:ff9b::/96`) — leads where its IPv4 address does: NAT64 to a
    /// public server is public.
    public var scope: Scope {
        if bytes.count == 4 { return Self.scope(v4: bytes) }
        let mapped: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF]
        let nat64: [UInt8] = [0x00, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0]
        if Array(bytes[0..<12]) == mapped || Array(bytes[0..<12]) == nat64 { return Self.scope(v4: Array(bytes[12..<16])) }
        if bytes[0..<15].allSatisfy({ $0 == 0 }) {
            return bytes[15] == 1 ? .loopback : .unusable  // ::1, ::
        }
        switch (bytes[0], bytes[1] & 0xC0) {
        case (0xFE, 0x80): return .linkLocal  // fe80::/10
        case (0xFE, 0xC0): return .privateNetwork  // fec0::/10
        case (0xFF, _): return .unusable  // multicast
        default: return bytes[0] & 0xFE == 0xFC ? .privateNetwork : .global  // fc00::/7
        }
    }

    /// Whether the address leads to the open internet: what a public host name should resolve to.
    public var isGlobal: Bool { scope == .global }

    private static func scope(v4 bytes: [UInt8]) -> Scope {
        switch (bytes[0], bytes[1]) {
        case (0, _): return .unusable
        case (127, _): return .loopback
        case (10, _), (172, 16...31), (192, 168), (100, 64...127): return .privateNetwork
        case (169, 254): return .linkLocal
        case (224...255, _): return .unusable  // multicast, reserved, broadcast
        default: return .global
        }
    }
}
