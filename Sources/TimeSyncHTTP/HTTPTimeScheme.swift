import TimeSync

/// Where a response says what time the server had: which header, in which convention.
///
/// An ``HTTPTimeObserver`` tries its schemes in order and uses the first the response carries; a
/// response with none of them is rejected (the clock is unchanged).
public enum HTTPTimeScheme: Sendable {
    /// The `TimeSync-Time` header: the server's receive and transmit times, to the nanosecond, with
    /// the request's nonce echoed.
    case timeSyncTime
    /// The `Date` header every HTTP server sends: one-second resolution.
    case date
    /// A header carrying a Unix timestamp, such as a millisecond `Response-Timestamp: 1732390000123`:
    /// the server's time when it answered, truncated to the unit (a fraction, `1732390000.123`, is
    /// read to its last digit).
    case unixTimestamp(header: String, unit: UnixTimestampUnit)
    /// Your own convention: read the server's time from the status and headers, or throw (any error
    /// rejects the response as ``HTTPTimeError/missingTimestamp`` with its description).
    case custom(name: String, @Sendable (_ status: Int, _ headers: [(name: String, value: String)]) throws -> HTTPServerTimeReading)

    /// A short name for logs and errors.
    public var name: String {
        switch self {
        case .timeSyncTime: HTTPTimeHeader.name
        case .date: "Date"
        case .unixTimestamp(let header, let unit): "\(header) (Unix \(unit.rawValue))"
        case .custom(let name, _): name
        }
    }

    /// Reads a Unix timestamp field value: ASCII digits with at most one `.` and up to 19 digits in
    /// all, no sign, optional whitespace around. Range-checked before any arithmetic.
    /// - Returns: The time and the resolution its last digit gives.
    static func parseUnixTimestamp(_ value: String, unit: UnixTimestampUnit) throws(HTTPTimeError) -> (UnixTime, Int64) {
        let text = value.trimmingOWS()
        var whole: Int64 = 0
        var fraction: Int64 = 0
        var fractionDigits = 0
        var digits = 0
        var seenPoint = false
        for byte in text.utf8 {
            if byte == UInt8(ascii: "."), !seenPoint {
                seenPoint = true
                continue
            }
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else {
                throw HTTPTimeError(.malformedTimestamp, detail: "not a Unix timestamp")
            }
            digits += 1
            guard digits <= 19 else { throw HTTPTimeError(.malformedTimestamp, detail: "too many digits") }
            let digit = Int64(byte - UInt8(ascii: "0"))
            // Nineteen digits can exceed Int64: checked, beyond it is malformed.
            let (shifted, o1) = (seenPoint ? fraction : whole).multipliedReportingOverflow(by: 10)
            let (value, o2) = shifted.addingReportingOverflow(digit)
            guard !o1, !o2 else { throw HTTPTimeError(.malformedTimestamp, detail: "outside the supported years") }
            if seenPoint {
                fractionDigits += 1
                fraction = value
            } else {
                whole = value
            }
        }
        guard digits > 0, !(seenPoint && fractionDigits == 0) else {
            throw HTTPTimeError(.malformedTimestamp, detail: "no digits")
        }
        // Whole units within the supported years first; then the fraction, at most one unit.
        let unitNanoseconds = unit.nanoseconds
        let limit = SampleLimits.serverTimes.upperBound.nanoseconds / unitNanoseconds
        guard whole <= limit else { throw HTTPTimeError(.malformedTimestamp, detail: "outside the supported years") }
        var resolution = unitNanoseconds
        var fractionNanoseconds: Int64 = 0
        for _ in 0..<fractionDigits { resolution /= 10 }
        guard resolution > 0 else { throw HTTPTimeError(.malformedTimestamp, detail: "finer than a nanosecond") }
        fractionNanoseconds = fraction * resolution
        let time = whole * unitNanoseconds + fractionNanoseconds
        guard SampleLimits.serverTimes.contains(UnixTime(nanoseconds: time)) else {
            throw HTTPTimeError(.malformedTimestamp, detail: "outside the supported years")
        }
        return (UnixTime(nanoseconds: time), resolution)
    }
}
