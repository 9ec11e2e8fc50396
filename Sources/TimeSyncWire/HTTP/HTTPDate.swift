import TimeSync

/// The HTTP-date of RFC 9110 §5.6.7: the format of the `Date` header.
///
/// Parsing is strict: exactly IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the obsolete RFC 850
/// form (`Sunday, 06-Nov-94 08:49:37 GMT`) or C's asctime (`Sun Nov  6 08:49:37 1994`), with
/// case-sensitive names, the day name checked against the date and no extra characters. Anything else
/// is an ``HTTPDateError``. Calendar arithmetic is `CivilDate`'s.
///
/// An HTTP-date names a whole second: the server's clock read some time in `[date, date + 1 s)`, which
/// is why a `Date` header becomes an `OffsetSample.timestamp(source:serverTime:resolution:requestSent:responseReceived:)`
/// sample of resolution ``resolution``.
public enum HTTPDate {
    /// The resolution of an HTTP-date: one second.
    public static let resolution: Duration = .seconds(1)

    /// Parses an HTTP-date.
    ///
    /// - Parameters:
    ///   - value: The field value. Optional whitespace around it (RFC 9110 §5.5) is ignored.
    ///   - reference: The time used to expand an RFC 850 two-digit year: a year that would put the
    ///     date more than 50 years after `reference` means the most recent past year with those
    ///     digits (RFC 9110 §5.6.7). Pass the device's wall clock; the other formats ignore it.
    /// - Returns: The start of the named second.
    /// - Throws: ``HTTPDateError`` when the value is not exactly one of the three formats or names a
    ///   date that does not exist.
    /// - Complexity: O(n) in the length of `value`.
    public static func parse(_ value: some StringProtocol, reference: UnixTime) throws(HTTPDateError) -> UnixTime {
        try parseSecond(value, reference: reference).time
    }

    /// The second an HTTP-date names (a leap second as the first second of the next day), and whether
    /// it was a leap second.
    private static func parseSecond(_ value: some StringProtocol, reference: UnixTime) throws(HTTPDateError) -> NamedSecond {
        var bytes = Array(value.utf8)
        while let last = bytes.last, last == .space || last == .tab { bytes.removeLast() }
        let start = bytes.firstIndex { $0 != .space && $0 != .tab } ?? bytes.endIndex
        bytes.removeFirst(start)
        guard !bytes.isEmpty else { throw HTTPDateError(.empty) }
        guard bytes.count >= 24 else { throw HTTPDateError(.unrecognizedFormat) }
        if bytes[3] == UInt8(ascii: ",") {
            return try parseIMFFixdate(bytes)
        } else if bytes[3] == .space {
            return try parseAsctime(bytes)
        } else if let comma = bytes.firstIndex(of: UInt8(ascii: ",")), comma >= 6, comma <= 9 {
            return try parseRFC850(bytes, comma: comma, reference: reference)
        }
        throw HTTPDateError(.unrecognizedFormat)
    }

    /// Parses an HTTP-date into the span of Unix time the server's clock may have read.
    ///
    /// An ordinary date names one second: `[date, date + 1 s)`. A leap second (`23:59:60`) is
    /// accepted as what it is: UTC's extra second, during which a Unix clock repeats 23:59:59 (or
    /// is smeared or stepped around it), so the span is the two seconds `[23:59:59, 00:00:01)`.
    /// - Parameters:
    ///   - value: The field value.
    ///   - reference: The time that expands an RFC 850 two-digit year (see ``parse(_:reference:)``).
    /// - Returns: The start of the span and its length (one second, or two for a leap second).
    /// - Throws: ``HTTPDateError`` as ``parse(_:reference:)``.
    public static func interval(_ value: some StringProtocol, reference: UnixTime) throws(HTTPDateError) -> (start: UnixTime, length: Duration) {
        let second = try parseSecond(value, reference: reference)
        return second.isLeapSecond ? (second.time.advanced(by: .seconds(-1)), .seconds(2)) : (second.time, resolution)
    }

    /// Formats a time as IMF-fixdate, the preferred HTTP-date format, truncating to the second.
    /// - Parameter time: The time to format.
    /// - Returns: For example `Sun, 06 Nov 1994 08:49:37 GMT`.
    public static func imfFixdate(_ time: UnixTime) -> String {
        let seconds = time.seconds
        let days = seconds.flooredDivision(by: 86_400)
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = CivilDate.fromDays(days)
        let weekday = Int((days + 4).flooredModulo(7))
        func two(_ v: Int64) -> String { v < 10 ? "0\(v)" : "\(v)" }
        var yearText = String(year)
        while yearText.count < 4 { yearText = "0" + yearText }
        return "\(shortDayNames[weekday]), \(two(Int64(day))) \(monthNames[month - 1]) \(yearText) "
            + "\(two(secondOfDay / 3600)):\(two((secondOfDay / 60) % 60)):\(two(secondOfDay % 60)) GMT"
    }

    // MARK: - Formats

    static let shortDayNames = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    static let longDayNames = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
    static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    /// Years whose every second fits ``UnixTime``'s nanosecond range.
    static let supportedYears: ClosedRange<Int64> = 1678...2261

    /// `Sun, 06 Nov 1994 08:49:37 GMT`
    private static func parseIMFFixdate(_ b: [UInt8]) throws(HTTPDateError) -> NamedSecond {
        guard b.count == 29 else { throw HTTPDateError(.unrecognizedFormat) }
        let weekday = try dayName(b[0..<3], names: shortDayNames)
        try expect(b, 4, .space)
        let day = try digits(b, 5, 2)
        try expect(b, 7, .space)
        let month = try monthName(b[8..<11])
        try expect(b, 11, .space)
        let year = try digits(b, 12, 4)
        try expect(b, 16, .space)
        let time = try timeOfDay(b, 17)
        try gmt(b, 25)
        return try assemble(year: year, month: month, day: day, time: time, weekday: weekday)
    }

    /// `Sunday, 06-Nov-94 08:49:37 GMT`
    private static func parseRFC850(_ b: [UInt8], comma: Int, reference: UnixTime) throws(HTTPDateError) -> NamedSecond {
        guard b.count == comma + 24 else { throw HTTPDateError(.unrecognizedFormat) }
        let weekday = try dayName(b[0..<comma], names: longDayNames)
        var i = comma + 1
        try expect(b, i, .space)
        let day = try digits(b, i + 1, 2)
        try expect(b, i + 3, UInt8(ascii: "-"))
        let month = try monthName(b[(i + 4)..<(i + 7)])
        try expect(b, i + 7, UInt8(ascii: "-"))
        let twoDigitYear = try digits(b, i + 8, 2)
        try expect(b, i + 10, .space)
        i += 11
        let time = try timeOfDay(b, i)
        try gmt(b, i + 8)
        let year = expandTwoDigitYear(twoDigitYear, month: month, day: day, time: time, reference: reference)
        return try assemble(year: year, month: month, day: day, time: time, weekday: weekday)
    }

    /// `Sun Nov  6 08:49:37 1994`
    private static func parseAsctime(_ b: [UInt8]) throws(HTTPDateError) -> NamedSecond {
        guard b.count == 24 else { throw HTTPDateError(.unrecognizedFormat) }
        let weekday = try dayName(b[0..<3], names: shortDayNames)
        let month = try monthName(b[4..<7])
        try expect(b, 7, .space)
        let day: Int64
        if b[8] == .space {
            day = try digits(b, 9, 1)
        } else {
            day = try digits(b, 8, 2)
        }
        try expect(b, 10, .space)
        let time = try timeOfDay(b, 11)
        try expect(b, 19, .space)
        let year = try digits(b, 20, 4)
        return try assemble(year: year, month: month, day: day, time: time, weekday: weekday)
    }

    // MARK: - Pieces

    private static func expect(_ b: [UInt8], _ index: Int, _ byte: UInt8) throws(HTTPDateError) {
        guard b[index] == byte else { throw HTTPDateError(.unexpectedCharacter) }
    }

    private static func digits(_ b: [UInt8], _ start: Int, _ count: Int) throws(HTTPDateError) -> Int64 {
        var value: Int64 = 0
        for byte in b[start..<(start + count)] {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { throw HTTPDateError(.unexpectedCharacter) }
            value = value * 10 + Int64(byte - UInt8(ascii: "0"))
        }
        return value
    }

    private static func dayName(_ slice: ArraySlice<UInt8>, names: [String]) throws(HTTPDateError) -> Int {
        guard let index = names.firstIndex(where: { $0.utf8.elementsEqual(slice) }) else {
            throw HTTPDateError(.invalidDayName)
        }
        return index
    }

    private static func monthName(_ slice: ArraySlice<UInt8>) throws(HTTPDateError) -> Int {
        guard let index = monthNames.firstIndex(where: { $0.utf8.elementsEqual(slice) }) else {
            throw HTTPDateError(.invalidMonth)
        }
        return index + 1
    }

    /// `hh:mm:ss` at `start`, as (hour, minute, second) — not yet range-checked.
    private static func timeOfDay(_ b: [UInt8], _ start: Int) throws(HTTPDateError) -> (Int64, Int64, Int64) {
        let hour = try digits(b, start, 2)
        try expect(b, start + 2, UInt8(ascii: ":"))
        let minute = try digits(b, start + 3, 2)
        try expect(b, start + 5, UInt8(ascii: ":"))
        let second = try digits(b, start + 6, 2)
        return (hour, minute, second)
    }

    /// ` GMT` at `start`, ending the value.
    private static func gmt(_ b: [UInt8], _ start: Int) throws(HTTPDateError) {
        guard b[start] == .space, b[(start + 1)...].elementsEqual("GMT".utf8) else { throw HTTPDateError(.missingGMT) }
    }

    /// RFC 9110 §5.6.7: a two-digit year that would put the date more than 50 years after
    /// `reference` is the most recent past year with the same last two digits.
    private static func expandTwoDigitYear(
        _ yy: Int64, month: Int, day: Int64, time: (Int64, Int64, Int64), reference: UnixTime
    ) -> Int64 {
        let referenceDays = reference.seconds.flooredDivision(by: 86_400)
        let referenceSecondOfDay = reference.seconds - referenceDays * 86_400
        let (referenceYear, referenceMonth, referenceDay) = CivilDate.fromDays(referenceDays)
        var year = referenceYear - referenceYear.flooredModulo(100) + yy
        // Compare (year, month, day, second of day) with the reference moved 50 years on.
        let candidate = (year, month, day, time.0 * 3600 + time.1 * 60 + time.2)
        let limit = (referenceYear + 50, referenceMonth, Int64(referenceDay), referenceSecondOfDay)
        if candidate > limit { year -= 100 }
        return year
    }

    private static func assemble(
        year: Int64, month: Int, day: Int64, time: (Int64, Int64, Int64), weekday: Int
    ) throws(HTTPDateError) -> NamedSecond {
        guard supportedYears.contains(year) else { throw HTTPDateError(.invalidYear) }
        guard day >= 1, day <= Int64(CivilDate.daysInMonth(year: year, month: month)) else {
            throw HTTPDateError(.invalidDay)
        }
        let (hour, minute, second) = time
        // Second 60 is a leap second, which only ever follows 23:59:59 UTC; Unix time counts it as
        // the first second of the next day.
        guard hour <= 23, minute <= 59, second <= 59 || (second == 60 && hour == 23 && minute == 59) else {
            throw HTTPDateError(.invalidTime)
        }
        let days = CivilDate.days(year: year, month: month, day: Int(day))
        guard Int((days + 4).flooredModulo(7)) == weekday else { throw HTTPDateError(.weekdayMismatch) }
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second
        // A leap second at the end of the last supported year would name the first second after it.
        guard seconds < CivilDate.days(year: supportedYears.upperBound + 1, month: 1, day: 1) * 86_400 else {
            throw HTTPDateError(.invalidYear)
        }
        return NamedSecond(time: UnixTime(seconds: seconds), isLeapSecond: second == 60)
    }

    /// What the format parsers return.
    private struct NamedSecond {
        /// The start of the named second; a leap second is the first second of the next day.
        var time: UnixTime
        /// Whether the date named second 60 (UTC's leap second).
        var isLeapSecond: Bool
    }
}

extension UInt8 {
    fileprivate static let space = UInt8(ascii: " ")
    fileprivate static let tab = UInt8(ascii: "\t")
}
