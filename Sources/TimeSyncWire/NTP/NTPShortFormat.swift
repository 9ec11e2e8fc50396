/// A 32-bit NTP short-format value: unsigned 16.16 fixed-point seconds, used for root delay and
/// root dispersion (RFC 5905 §6).
public struct NTPShortFormat: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The wire value: whole seconds in the high 16 bits, fraction in units of 2⁻¹⁶ s in the low 16.
    public var rawValue: UInt32

    /// Zero seconds.
    public static let zero = NTPShortFormat(rawValue: 0)

    /// Creates a value from its wire representation.
    @inlinable
    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    /// The nearest representable value not below `duration` less 1 ns (delays and dispersions round
    /// up, so bounds built from them stay honest), clamped to `0 ... 65535.99998 s`.
    public init(_ duration: Duration) {
        let nanoseconds = duration.nanosecondsClamped
        if nanoseconds <= 0 {
            rawValue = 0
        } else if nanoseconds >= 65_536 * 1_000_000_000 {
            rawValue = .max
        } else {
            // Round up, less one nanosecond: `duration` rounds up to the next nanosecond, so a value
            // that came from this format converts back to the same wire value.
            let units = (UInt64(nanoseconds - 1) << 16 + 999_999_999) / 1_000_000_000
            rawValue = UInt32(min(units, UInt64(UInt32.max)))
        }
    }

    /// The value as a duration, rounded up to the next nanosecond.
    public var duration: Duration {
        .nanoseconds(Int64((UInt64(rawValue) * 1_000_000_000 + 0xFFFF) >> 16))
    }

    /// Seconds with six decimals.
    public var description: String {
        String(Double(rawValue) / 65_536)
    }
}
