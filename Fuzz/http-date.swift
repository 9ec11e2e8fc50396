import TimeSync
import TimeSyncWire

/// The HTTP `Date` parser and formatter.
///
/// Input: the field value's bytes, optionally followed by a NUL and eight bytes of reference time (the
/// wall clock that expands RFC 850's two-digit years). The bytes are offered three ways: decoded as
/// UTF-8 (invalid sequences become U+FFFD), as ISO-8859-1 (one character per byte, as a lenient HTTP
/// stack hands header bytes over), and as a substring of a longer string.
/// - A date that parses names a whole second in the supported years, and formats as IMF-fixdate
///   into text that parses back to it; an IMF-fixdate input is exactly that text (but for a leap
///   second, which becomes the next day's first second).
/// - The reference-time bytes also go through the formatter, whose output must parse back.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTPDate(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = FuzzInput(data, size).bytes
    let value: ArraySlice<UInt8>
    var reference = UnixTime(seconds: 1_767_225_600)  // 2026-01-01
    if let nul = input.firstIndex(of: 0) {
        value = input[..<nul]
        var parameters = FuzzInput(Array(input[(nul + 1)...]))
        if !parameters.isAtEnd { reference = UnixTime(nanoseconds: parameters.int64()) }
    } else {
        value = input[...]
    }

    let utf8 = String(decoding: value, as: UTF8.self)
    checkParse(utf8, reference: reference)
    let latin1 = String(String.UnicodeScalarView(value.map { Unicode.Scalar($0) }))
    if latin1 != utf8 { checkParse(latin1, reference: reference) }
    let padded = "x" + utf8 + "x"
    checkParse(padded.dropFirst().dropLast(), reference: reference)

    checkFormat(reference)
    return 0
}

private func checkParse(_ value: some StringProtocol, reference: UnixTime) {
    let parsed: UnixTime
    do {
        parsed = try HTTPDate.parse(value, reference: reference)
    } catch {
        return
    }
    check(parsed.nanoseconds.isMultiple(of: 1_000_000_000), "an HTTP-date names a whole second: \(parsed.nanoseconds)")
    let parsedYear = year(of: parsed)
    check((1678...2262).contains(parsedYear), "parsed year \(parsedYear) outside the supported years")
    let formatted = HTTPDate.imfFixdate(parsed)
    let reparsed = try? HTTPDate.parse(formatted, reference: reference)
    check(reparsed == parsed, "\(formatted) parses to \(String(describing: reparsed)), not \(parsed)")
    // Optional whitespace around the value is not part of the date.
    let trimmed = Array(value.utf8.drop { $0 == 0x20 || $0 == 0x09 }.reversed().drop { $0 == 0x20 || $0 == 0x09 }.reversed())
    let isIMFFixdate = trimmed.count == 29 && trimmed[3] == UInt8(ascii: ",")
    let isLeapSecond = isIMFFixdate && trimmed[23] == UInt8(ascii: "6") && trimmed[24] == UInt8(ascii: "0")
    if isIMFFixdate && !isLeapSecond {
        check(Array(formatted.utf8) == trimmed, "IMF-fixdate \(value) formats back as \(formatted)")
    }
}

/// Any time formats without trapping; inside the supported years the text parses back to the second.
private func checkFormat(_ time: UnixTime) {
    let formatted = HTTPDate.imfFixdate(time)
    guard (1678...2261).contains(year(of: time)) else { return }
    let second = UnixTime(seconds: time.seconds)
    let reparsed = try? HTTPDate.parse(formatted, reference: time)
    check(reparsed == second, "\(formatted) parses to \(String(describing: reparsed)), not \(second)")
}

/// The proleptic Gregorian year of a time (``CivilDate`` is the one home of calendar math).
private func year(of time: UnixTime) -> Int64 {
    let seconds = time.seconds
    let days = seconds / 86_400 - (seconds % 86_400 < 0 ? 1 : 0)
    return CivilDate.fromDays(days).year
}
