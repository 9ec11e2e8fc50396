import TimeSync
import TimeSyncWire

/// The `Retry-After` parser.
///
/// Input: the field value's bytes, optionally followed by a NUL and eight bytes of the time an
/// HTTP-date is counted from. The bytes are offered decoded as UTF-8 (invalid sequences become
/// U+FFFD) and as ISO-8859-1 (one character per byte).
/// - A value that parses is a wait within 0 … `HTTPRetryAfter.maximum`.
/// - ASCII digits alone are their number of seconds, up to the maximum, whatever their count.
/// - A value that does not parse is one of the three typed errors, never a trap.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRetryAfter(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = FuzzInput(data, size).bytes
    let value: ArraySlice<UInt8>
    var now = UnixTime(seconds: 1_767_225_600)  // 2026-01-01
    if let nul = input.firstIndex(of: 0) {
        value = input[..<nul]
        var parameters = FuzzInput(Array(input[(nul + 1)...]))
        if !parameters.isAtEnd { now = UnixTime(nanoseconds: parameters.int64()) }
    } else {
        value = input[...]
    }
    let utf8 = String(decoding: value, as: UTF8.self)
    check(utf8, now: now)
    let latin1 = String(String.UnicodeScalarView(value.map { Unicode.Scalar($0) }))
    if latin1 != utf8 { check(latin1, now: now) }
    return 0
}

private func check(_ value: String, now: UnixTime) {
    let wait: Duration
    do {
        wait = try HTTPRetryAfter.parse(value, now: now)
    } catch {
        check([HTTPRetryAfterError.Code.empty, .negative, .malformed].contains(error.code), "untyped error \(error)")
        return
    }
    check(wait >= .zero && wait <= HTTPRetryAfter.maximum, "wait \(wait) outside 0 … one day for \(value)")
    let trimmed = value.utf8.drop { $0 == 0x20 || $0 == 0x09 }.reversed().drop { $0 == 0x20 || $0 == 0x09 }.reversed()
    if !trimmed.isEmpty, trimmed.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
        let significant = Array(trimmed.drop { $0 == 0x30 })
        let expected: Duration =
            significant.count > 6 ? HTTPRetryAfter.maximum
            : min(.seconds(significant.reduce(0) { $0 * 10 + Int64($1 - 0x30) }), HTTPRetryAfter.maximum)
        check(wait == expected, "\(value) gives \(wait), not \(expected)")
    }
}
