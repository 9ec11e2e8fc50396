import TimeSync

/// Why bytes could not be decoded as an NTP packet.
public struct NTPPacketError: CodedError {
    /// The kinds of undecodable bytes.
    public enum Code: Sendable, Hashable {
        /// Fewer than the 48 bytes of the header.
        case truncated
        /// The extension area after the header does not parse.
        case malformedExtensionField
    }

    /// Which kind of failure this is.
    public let code: Code

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
