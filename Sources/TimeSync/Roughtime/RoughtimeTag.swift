/// A Roughtime tag: four ASCII bytes on the wire, compared as the little-endian `UInt32` they form
/// (a message lists its tags in that order).
public struct RoughtimeTag: RawRepresentable, Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The tag's four bytes as a little-endian number.
    public let rawValue: UInt32

    /// The tag with this wire value.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// The tag spelt by up to four ASCII characters, padded with zero bytes (`"SIG"` is `SIG\0`).
    init(_ name: String) {
        var value: UInt32 = 0
        for (index, byte) in name.utf8.prefix(4).enumerated() { value |= UInt32(byte) << (8 * index) }
        rawValue = value
    }

    public static func < (lhs: RoughtimeTag, rhs: RoughtimeTag) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The tag's characters (`SIG`, `NONC`), or its value in hex when they are not printable.
    public var description: String {
        let bytes = (0..<4).map { UInt8(truncatingIfNeeded: rawValue >> (8 * $0)) }
        let trimmed = bytes.reversed().drop { $0 == 0 }.reversed()
        guard !trimmed.isEmpty, trimmed.allSatisfy({ (0x20...0x7e).contains($0) }) else {
            return "0x" + String(rawValue, radix: 16)
        }
        return String(decoding: trimmed, as: UTF8.self)
    }

    public static let signature = RoughtimeTag("SIG")
    public static let version = RoughtimeTag("VER")
    public static let server = RoughtimeTag("SRV")
    public static let nonce = RoughtimeTag("NONC")
    public static let delegation = RoughtimeTag("DELE")
    public static let type = RoughtimeTag("TYPE")
    public static let path = RoughtimeTag("PATH")
    public static let radius = RoughtimeTag("RADI")
    public static let publicKey = RoughtimeTag("PUBK")
    public static let midpoint = RoughtimeTag("MIDP")
    public static let signedResponse = RoughtimeTag("SREP")
    public static let minimumTime = RoughtimeTag("MINT")
    public static let root = RoughtimeTag("ROOT")
    public static let certificate = RoughtimeTag("CERT")
    public static let maximumTime = RoughtimeTag("MAXT")
    public static let index = RoughtimeTag("INDX")
    public static let versions = RoughtimeTag("VERS")
    /// Padding in a request (`ZZZZ`).
    public static let padding = RoughtimeTag("ZZZZ")
    /// Padding in a request of Google's original protocol (`PAD` and the byte 0xff).
    public static let googlePadding = RoughtimeTag(rawValue: 0xff44_4150)
}
