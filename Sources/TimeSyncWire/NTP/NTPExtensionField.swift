/// An NTPv4 extension field (RFC 7822), kept opaque.
public struct NTPExtensionField: Sendable, Hashable {
    /// The field type.
    public var type: UInt16
    /// The value, including any padding; the wire length is `value.count + 4`.
    public var value: [UInt8]

    /// Creates an extension field.
    public init(type: UInt16, value: [UInt8]) {
        self.type = type
        self.value = value
    }
}
