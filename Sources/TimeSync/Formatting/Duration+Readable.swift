import Foundation

extension Duration {
    /// The duration in the unit that reads best, for messages, logs and the CLI: `12.3 µs`,
    /// `4.56 ms`, `1.234 s`.
    package var readable: String { Duration.readable(seconds: secondsValue) }

    /// A signed duration in the unit that reads best: `+4.56 ms`, `-1.234 s`.
    package var signedReadable: String { Duration.readable(seconds: secondsValue, signed: true) }

    /// Seconds in the unit that reads best: `12.3 µs` below a millisecond, `4.56 ms` below a second,
    /// `1.234 s` above; `-` for a value that is not finite.
    /// - Parameters:
    ///   - seconds: The value, in seconds.
    ///   - signed: Whether a value of zero or more starts with `+` (a negative one always has its `-`).
    /// - Returns: The text.
    package static func readable(seconds: Double, signed: Bool = false) -> String {
        guard seconds.isFinite else { return "-" }
        let magnitude = abs(seconds)
        let sign = seconds < 0 ? "-" : signed ? "+" : ""
        if magnitude < 1e-3 { return sign + String(format: "%.1f µs", magnitude * 1e6) }
        if magnitude < 1 { return sign + String(format: "%.2f ms", magnitude * 1e3) }
        return sign + String(format: "%.3f s", magnitude)
    }
}
