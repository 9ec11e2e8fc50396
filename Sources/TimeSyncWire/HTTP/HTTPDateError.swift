import TimeSync

/// Why an HTTP-date (RFC 9110 §5.6.7) could not be parsed. A malformed date changes nothing.
public struct HTTPDateError: CodedError {
    /// The kinds of unreadable HTTP-date.
    public enum Code: Sendable, Hashable {
        /// The value is empty (or only whitespace).
        case empty
        /// The value matches none of IMF-fixdate, RFC 850 and asctime (wrong length or layout).
        case unrecognizedFormat
        /// The day name is not one of the (case-sensitive) names the format allows.
        case invalidDayName
        /// The day name does not match the calendar date.
        case weekdayMismatch
        /// The month is not one of `Jan` … `Dec` (case-sensitive).
        case invalidMonth
        /// The day of the month is zero or beyond the month's length.
        case invalidDay
        /// The year has the wrong number of digits or is out of range.
        case invalidYear
        /// The hour, minute or second is out of range (second 60 is allowed only at 23:59).
        case invalidTime
        /// IMF-fixdate and RFC 850 dates must end in ` GMT`.
        case missingGMT
        /// A character where the format requires a digit, a space or a separator.
        case unexpectedCharacter
    }

    /// Which kind of failure this is.
    public let code: Code

    init(_ code: Code) { self.code = code }

    /// The value is empty (or only whitespace).
    public static let empty = HTTPDateError(.empty)
    /// The value matches none of IMF-fixdate, RFC 850 and asctime (wrong length or layout).
    public static let unrecognizedFormat = HTTPDateError(.unrecognizedFormat)
    /// The day name is not one of the (case-sensitive) names the format allows.
    public static let invalidDayName = HTTPDateError(.invalidDayName)
    /// The day name does not match the calendar date.
    public static let weekdayMismatch = HTTPDateError(.weekdayMismatch)
    /// The month is not one of `Jan` … `Dec` (case-sensitive).
    public static let invalidMonth = HTTPDateError(.invalidMonth)
    /// The day of the month is zero or beyond the month's length.
    public static let invalidDay = HTTPDateError(.invalidDay)
    /// The year has the wrong number of digits or is out of range.
    public static let invalidYear = HTTPDateError(.invalidYear)
    /// The hour, minute or second is out of range (second 60 is allowed only at 23:59).
    public static let invalidTime = HTTPDateError(.invalidTime)
    /// IMF-fixdate and RFC 850 dates must end in ` GMT`.
    public static let missingGMT = HTTPDateError(.missingGMT)
    /// A character where the format requires a digit, a space or a separator.
    public static let unexpectedCharacter = HTTPDateError(.unexpectedCharacter)

    /// A human-readable explanation.
    public var description: String {
        switch code {
        case .empty: "empty HTTP-date"
        case .unrecognizedFormat: "not an IMF-fixdate, RFC 850 or asctime date"
        case .invalidDayName: "invalid day name"
        case .weekdayMismatch: "day name does not match the date"
        case .invalidMonth: "invalid month name"
        case .invalidDay: "day of month out of range"
        case .invalidYear: "invalid year"
        case .invalidTime: "time of day out of range"
        case .missingGMT: "date does not end in GMT"
        case .unexpectedCharacter: "unexpected character in HTTP-date"
        }
    }
}
