/// The 32-bit reference identifier of an NTP packet.
///
/// For stratum 1 it names the reference clock in up to four ASCII characters (`GPS`, `PPS`, `LOCL`);
/// for stratum 0 it carries a Kiss-o'-Death code (`RATE`, `DENY`, `RSTR`); for higher strata it is
/// the IPv4 address (or an MD5 digest fragment of the IPv6 address) of the upstream server.
public struct NTPReferenceID: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The wire value, most significant byte first.
    public var rawValue: UInt32

    /// Creates a reference identifier from its wire value.
    @inlinable
    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    /// Creates a reference identifier from up to four ASCII characters, padded with zero bytes.
    /// Returns `nil` for longer strings or non-ASCII characters.
    public init?(ascii: String) {
        let bytes = Array(ascii.utf8)
        guard bytes.count <= 4, bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
        var value: UInt32 = 0
        for index in 0..<4 {
            value = value << 8 | UInt32(index < bytes.count ? bytes[index] : 0)
        }
        rawValue = value
    }

    /// Creates a reference identifier from an IPv4 address's four bytes.
    public init(ipv4 a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8) {
        rawValue = UInt32(a) << 24 | UInt32(b) << 16 | UInt32(c) << 8 | UInt32(d)
    }

    /// The four bytes, most significant first.
    public var bytes: [UInt8] {
        [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: rawValue >> $0) }
    }

    /// The identifier as ASCII text (trailing zero bytes dropped), or `nil` when it is not printable
    /// ASCII padded with zero bytes.
    public var ascii: String? {
        var characters = bytes
        while characters.last == 0 { characters.removeLast() }
        guard !characters.isEmpty, characters.allSatisfy({ (0x20...0x7E).contains($0) }) else { return nil }
        return String(decoding: characters, as: UTF8.self)
    }

    /// Kiss-o'-Death `RATE`: the client polls too often and must reduce its rate.
    public static let rate = NTPReferenceID(ascii: "RATE")!
    /// Kiss-o'-Death `DENY`: access denied; stop sending to this server.
    public static let deny = NTPReferenceID(ascii: "DENY")!
    /// Kiss-o'-Death `RSTR`: access restricted; stop sending to this server.
    public static let restricted = NTPReferenceID(ascii: "RSTR")!
    /// `LOCL`: a server serving its own local clock.
    public static let local = NTPReferenceID(ascii: "LOCL")!

    /// What a client must do on receiving this identifier as a Kiss-o'-Death code.
    public var kissAction: NTPKissAction {
        switch self {
        case .rate: .reducePollRate
        case .deny, .restricted: .stopUsingServer
        default: .discardReply
        }
    }

    /// ASCII text when printable (`RATE`, `GPS`), a dotted quad otherwise.
    public var description: String {
        ascii ?? bytes.map(String.init).joined(separator: ".")
    }
}
