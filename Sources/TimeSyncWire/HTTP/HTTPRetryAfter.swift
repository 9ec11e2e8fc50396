import TimeSync

/// The `Retry-After` field of RFC 9110 §10.2.3: how long a server that answered `429 Too Many
/// Requests` or `503 Service Unavailable` asks its clients to wait before the next request.
///
/// The value is either delta-seconds (`120`) or an HTTP-date (`Fri, 31 Dec 1999 23:59:59 GMT`).
/// What comes from the network is range-checked here: a wait is never negative (a date in the
/// past means "now") and never longer than ``maximum`` (a bogus or hostile value, or a date decades
/// ahead, must not silence a source for good). Anything else is an ``HTTPRetryAfterError``.
public enum HTTPRetryAfter {
    /// The longest wait honoured: one day (`PollOutcome.longestRetryAfter`, the synchronizer's rule).
    public static let maximum: Duration = PollOutcome.longestRetryAfter

    private static let maximumSeconds: Int64 = maximum.components.seconds

    /// Parses a `Retry-After` value.
    ///
    /// - Parameters:
    ///   - value: The field value: delta-seconds (ASCII digits only) or an HTTP-date. Optional
    ///     whitespace around it is ignored.
    ///   - now: The time an HTTP-date is counted from. Pass the response's `Date` when it has one
    ///     (the server wrote both with its own clock), else the device's wall clock.
    /// - Returns: The wait, within `0...maximum`: delta-seconds beyond a day (however many digits)
    ///   and dates more than a day after `now` give ``maximum``; a date at or before `now` gives zero.
    /// - Throws: ``HTTPRetryAfterError``: ``HTTPRetryAfterError/empty``,
    ///   ``HTTPRetryAfterError/negative`` for `-5`, ``HTTPRetryAfterError/malformed`` for anything
    ///   that is neither delta-seconds nor an HTTP-date (`1.5`, `soon`, `+3`).
    /// - Complexity: O(n) in the length of `value`.
    public static func parse(_ value: some StringProtocol, now: UnixTime) throws(HTTPRetryAfterError) -> Duration {
        let bytes = trimmed(value)
        guard !bytes.isEmpty else { throw HTTPRetryAfterError(.empty) }
        if bytes.allSatisfy(isDigit) {
            // Saturating: any count of digits is a wait of at most a day, never an overflow.
            var seconds: Int64 = 0
            for byte in bytes {
                seconds = min(seconds * 10 + Int64(byte - UInt8(ascii: "0")), maximumSeconds + 1)
            }
            return .seconds(min(seconds, maximumSeconds))
        }
        if bytes.first == UInt8(ascii: "-"), bytes.count > 1, bytes.dropFirst().allSatisfy(isDigit) {
            throw HTTPRetryAfterError(.negative)
        }
        let date: UnixTime
        do {
            date = try HTTPDate.parse(String(decoding: bytes, as: UTF8.self), reference: now)
        } catch {
            throw HTTPRetryAfterError(.malformed, underlying: error)
        }
        return clamp(now.duration(to: date))
    }

    /// A wait brought within `0...maximum`.
    /// - Parameter wait: Any duration (one given by a caller, or computed from the network).
    /// - Returns: Zero for a negative wait, ``maximum`` for a longer one, else `wait`.
    public static func clamp(_ wait: Duration) -> Duration {
        PollOutcome.boundedRetryAfter(wait)
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private static func trimmed(_ value: some StringProtocol) -> ArraySlice<UInt8> {
        let bytes = Array(value.utf8)[...]
        let isSpace = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) })
        else { return [] }
        return bytes[first...last]
    }
}
