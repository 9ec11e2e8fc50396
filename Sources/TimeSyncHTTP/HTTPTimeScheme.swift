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
    /// A header carrying a Unix timestamp, such as a millisecond `Response-Timestamp: 1732390000123`
    /// (`unit: .milliseconds(1)`): the server's time when it answered, truncated to the unit (a
    /// fraction, `1732390000.123`, is read to its last digit). The unit is one second, millisecond,
    /// microsecond or nanosecond, or another power of ten of nanoseconds up to a second; a response
    /// read with any other unit is rejected, saying so.
    case unixTimestamp(header: String, unit: Duration)
    /// Your own convention: read the server's time from the status and headers, or throw (any error
    /// rejects the response, its description the reason). Return:
    /// - `serverTime`: the server's time as it answered (as late as it could read it);
    /// - `resolution`: how finely it is known: the server's time lies in
    ///   `serverTime ..< serverTime + resolution` (zero for an exact time);
    /// - `processingTime`: how long the server worked on the request before `serverTime`, when it
    ///   says so: the sample is then an exchange, far tighter than the round trip.
    case custom(
        name: String,
        @Sendable (_ status: Int, _ headers: [(name: String, value: String)]) throws -> (
            serverTime: UnixTime, resolution: Duration, processingTime: Duration?
        ))

    /// A short name for logs and errors.
    public var name: String {
        switch self {
        case .timeSyncTime: HTTPTimeHeader.name
        case .date: "Date"
        case .unixTimestamp(let header, let unit): "\(header) (Unix \(Self.unitName(unit)))"
        case .custom(let name, _): name
        }
    }

    /// Reads a Unix timestamp field value: ASCII digits with at most one `.` and up to 19 digits in
    /// all, no sign, optional whitespace around. Range-checked before any arithmetic.
    /// - Returns: The time and the resolution its last digit gives.
    /// `seconds`, `milliseconds`, `microseconds`, `nanoseconds`, or the unit as a duration.
    static func unitName(_ unit: Duration) -> String {
        switch unit.nanosecondsClamped {
        case 1_000_000_000: "seconds"
        case 1_000_000: "milliseconds"
        case 1_000: "microseconds"
        case 1: "nanoseconds"
        default: "units of \(unit)"
        }
    }

    /// One unit in nanoseconds, when it is a power of ten from a nanosecond to a second.
    static func unitNanoseconds(_ unit: Duration) -> Int64? {
        let nanoseconds = unit.nanosecondsClamped
        var power: Int64 = 1
        while power <= 1_000_000_000 {
            if nanoseconds == power { return power }
            power *= 10
        }
        return nil
    }

    static func parseUnixTimestamp(_ value: String, unit: Duration) throws(HTTPTimeError) -> (UnixTime, Int64) {
        guard let unitNanoseconds = unitNanoseconds(unit) else {
            throw HTTPTimeError(.malformedTimestamp, detail: "the scheme's unit, \(unit), is not a second, a millisecond, a microsecond or a nanosecond")
        }
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
