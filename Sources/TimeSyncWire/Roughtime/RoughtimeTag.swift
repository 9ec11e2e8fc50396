/// A Roughtime tag: four ASCII bytes on the wire, compared as the little-endian `UInt32` they form
/// (a message lists its tags in that order).
package struct RoughtimeTag: RawRepresentable, Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The tag's four bytes as a little-endian number.
    package let rawValue: UInt32

    /// The tag with this wire value.
    package init(rawValue: UInt32) { self.rawValue = rawValue }

    /// The tag spelt by up to four ASCII characters, padded with zero bytes (`"SIG"` is `SIG\0`).
    init(_ name: String) {
        var value: UInt32 = 0
        for (index, byte) in name.utf8.prefix(4).enumerated() { value |= UInt32(byte) << (8 * index) }
        rawValue = value
    }

    package static func < (lhs: RoughtimeTag, rhs: RoughtimeTag) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The tag's characters (`SIG`, `NONC`), or its value in hex when they are not printable.
    package var description: String {
        let bytes = (0..<4).map { UInt8(truncatingIfNeeded: rawValue >> (8 * $0)) }
        let trimmed = bytes.reversed().drop { $0 == 0 }.reversed()
        guard !trimmed.isEmpty, trimmed.allSatisfy({ (0x20...0x7e).contains($0) }) else {
            return "0x" + String(rawValue, radix: 16)
        }
        return String(decoding: trimmed, as: UTF8.self)
    }

    package static let signature = RoughtimeTag("SIG")
    package static let version = RoughtimeTag("VER")
    package static let server = RoughtimeTag("SRV")
    package static let nonce = RoughtimeTag("NONC")
    package static let delegation = RoughtimeTag("DELE")
    package static let type = RoughtimeTag("TYPE")
    package static let path = RoughtimeTag("PATH")
    package static let radius = RoughtimeTag("RADI")
    package static let publicKey = RoughtimeTag("PUBK")
    package static let midpoint = RoughtimeTag("MIDP")
    package static let signedResponse = RoughtimeTag("SREP")
    package static let minimumTime = RoughtimeTag("MINT")
    package static let root = RoughtimeTag("ROOT")
    package static let certificate = RoughtimeTag("CERT")
    package static let maximumTime = RoughtimeTag("MAXT")
    package static let index = RoughtimeTag("INDX")
    package static let versions = RoughtimeTag("VERS")
    /// Padding in a request (`ZZZZ`).
    package static let padding = RoughtimeTag("ZZZZ")
    /// Padding in a request of Google's original protocol (`PAD` and the byte 0xff).
    package static let googlePadding = RoughtimeTag(rawValue: 0xff44_4150)
}
