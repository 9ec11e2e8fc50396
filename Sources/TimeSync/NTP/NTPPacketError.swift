/// Why bytes could not be decoded as an NTP packet.
public struct NTPPacketError: Error, Sendable, Hashable, CustomStringConvertible {
    enum Code: Sendable, Hashable {
        case truncated, malformedExtensionField
    }

    let code: Code

    init(_ code: Code) { self.code = code }

    /// Fewer than the 48 bytes of the header.
    public static let truncated = NTPPacketError(.truncated)
    /// The extension area after the header does not parse.
    public static let malformedExtensionField = NTPPacketError(.malformedExtensionField)

    public var description: String {
        switch code {
        case .truncated: "NTP packet shorter than the 48-byte header"
        case .malformedExtensionField: "malformed NTP extension field or trailer"
        }
    }
}
