extension UnixTime {
    /// The time in `text`, to the nanosecond: Unix seconds (`1782000000`, `-6999999999`,
    /// `1782000000.123456789`), or an ISO 8601 date and time with a `Z` or an offset
    /// (`2026-11-26T08:00:00.123456789Z`, `2026-11-26T09:00:00+01:00`). Decimals are read as decimals,
    /// never through a `Double`: no digit of the nine after the point is lost; a tenth or later rounds
    /// to the nearest nanosecond. Seconds in exponent notation (`1.78e9`) are read as a `Double`.
    /// - Returns: `nil` for anything else, or a time more than `limit` seconds from the epoch.
    package init?(parsing text: String, limit: Int64 = 7_000_000_000) {
        let parsed = Self.decimalSeconds(text) ?? Self.iso8601(text) ?? Self.exponentSeconds(text)
        guard let parsed, parsed.magnitude < UInt64(limit.magnitude) * 1_000_000_000 else { return nil }
        self.init(nanoseconds: parsed)
    }

    /// `[+-]DIGITS[.DIGITS]` as nanoseconds; `nil` for any other text or one out of range.
    private static func decimalSeconds(_ text: String) -> Int64? {
        var rest = Substring(text)
        var negative = false
        if let sign = rest.first, sign == "-" || sign == "+" {
            negative = sign == "-"
            rest = rest.dropFirst()
        }
        let whole = rest.prefix { $0.isASCII && $0.isNumber }
        rest = rest.dropFirst(whole.count)
        var fraction: Substring = ""
        if rest.first == "." {
            fraction = rest.dropFirst().prefix { $0.isASCII && $0.isNumber }
            rest = rest.dropFirst(1 + fraction.count)
            guard !fraction.isEmpty else { return nil }
        }
        guard rest.isEmpty, !whole.isEmpty || !fraction.isEmpty, whole.count <= 18, let seconds = Int64(whole.isEmpty ? "0" : whole),
            seconds < 9_000_000_000, let nanoseconds = nanoseconds(ofFraction: fraction)
        else { return nil }
        let value = seconds * 1_000_000_000 + nanoseconds
        return negative ? -value : value
    }

    /// The digits after a decimal point as nanoseconds, rounded to the nearest; `nil` for non-digits.
    private static func nanoseconds(ofFraction digits: Substring) -> Int64? {
        guard digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        let nine = digits.prefix(9)
        var value = Int64(nine.isEmpty ? "0" : nine)!
        for _ in nine.count..<9 { value *= 10 }
        if let next = digits.dropFirst(9).first, next >= "5" { value += 1 }
        return value
    }

    /// `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM|±HHMM)` as nanoseconds since the epoch.
    private static func iso8601(_ text: String) -> Int64? {
        let characters = Array(text)
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= characters.count, characters[range].allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            return Int(String(characters[range]))
        }
        guard characters.count >= 20, characters[4] == "-", characters[7] == "-", characters[10] == "T" || characters[10] == "t",
            characters[13] == ":", characters[16] == ":",
            let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            (1...12).contains(month), (1...CivilDate.daysInMonth(year: Int64(year), month: month)).contains(day),
            hour < 24, minute < 60, second < 60
        else { return nil }
        var index = 19
        var fraction: Int64 = 0
        if characters[index] == "." {
            let digits = characters[(index + 1)...].prefix { $0.isASCII && $0.isNumber }
            guard !digits.isEmpty, let value = nanoseconds(ofFraction: Substring(String(digits))) else { return nil }
            fraction = value
            index += 1 + digits.count
        }
        guard index < characters.count else { return nil }
        var offsetSeconds = 0
        switch characters[index] {
        case "Z", "z":
            guard index + 1 == characters.count else { return nil }
        case "+", "-":
            let sign = characters[index] == "-" ? -1 : 1
            let zone = Array(characters[(index + 1)...])
            let digits: [Character]
            if zone.count == 5, zone[2] == ":" {
                digits = Array(zone[0..<2] + zone[3..<5])
            } else if zone.count == 4 {
                digits = zone
            } else {
                return nil
            }
            guard digits.allSatisfy({ $0.isASCII && $0.isNumber }), let hours = Int(String(digits[0..<2])), let minutes = Int(String(digits[2..<4])),
                hours < 24, minutes < 60
            else { return nil }
            offsetSeconds = sign * (hours * 3600 + minutes * 60)
        default:
            return nil
        }
        let days = CivilDate.days(year: Int64(year), month: month, day: day)
        let seconds = days * 86_400 + Int64(hour * 3600 + minute * 60 + second - offsetSeconds)
        guard seconds.magnitude < 9_000_000_000 else { return nil }
        return seconds * 1_000_000_000 + fraction
    }

    /// Seconds in a form only a `Double` reads (`1.78e9`), rounded to the nanosecond.
    private static func exponentSeconds(_ text: String) -> Int64? {
        guard text.contains(where: { $0 == "e" || $0 == "E" }), let seconds = Double(text), seconds.isFinite, abs(seconds) < 9e9 else { return nil }
        return Int64((seconds * 1e9).rounded())
    }
}
