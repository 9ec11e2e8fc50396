import TimeSync
import TimeSyncWire

extension HTTPTimeError {
    /// The statuses by which a server asks its clients to back off: `429 Too Many Requests` and
    /// `503 Service Unavailable`.
    package static let retryLaterStatuses: Set<Int> = [429, 503]

    /// The ``retryLater`` error for a response that asks the client to back off, with the wait its
    /// `Retry-After` asks for; `nil` for any other status.
    ///
    /// Several `Retry-After` fields give the longest wait among those that parse (the politest
    /// reading). An HTTP-date is counted from the response's own `Date` when it has one that parses
    /// (the server wrote both with its clock), else from `wallNow`. A value that does not parse is
    /// named in the error's detail, and the error has no ``retryAfter``.
    /// - Parameters:
    ///   - status: The response's status code.
    ///   - headers: The response's header fields; names compare case-insensitively.
    ///   - wallNow: The device's wall clock now.
    /// - Returns: The error, or `nil` when the status is not one of ``retryLaterStatuses``.
    package static func retryLater(
        status: Int, headers: some Sequence<(name: String, value: String)>, wallNow: UnixTime
    ) -> HTTPTimeError? {
        guard retryLaterStatuses.contains(status) else { return nil }
        let fields = Array(headers)
        func values(_ name: String) -> [String] { fields.filter { $0.name.caseInsensitiveEquals(name) }.map(\.value) }
        let dates = values("Date").compactMap { try? HTTPDate.parse($0, reference: wallNow) }
        let now = dates.count == 1 ? dates[0] : wallNow
        var wait: Duration?
        var unreadable: String?
        for value in values("Retry-After") {
            do {
                let parsed = try HTTPRetryAfter.parse(value, now: now)
                wait = max(wait ?? parsed, parsed)
            } catch {
                unreadable = "Retry-After '\(value.prefix(64))': \(error)"
            }
        }
        return HTTPTimeError(.retryLater, detail: wait == nil ? unreadable : nil, status: status, retryAfter: wait)
    }

    /// What this error means for a time source's polling schedule: ``retryLater`` with a
    /// `Retry-After` waits that long (`PollOutcome.retryAfter(_:)`); a `429` without a usable
    /// one slows polling down like NTP's `RATE` kiss; anything else is a failure (back off and retry).
    package var pollOutcome: PollOutcome {
        guard code == .retryLater else { return .failure }
        if let retryAfter { return .retryAfter(retryAfter) }
        return status == 429 ? .slowDown(interval: nil) : .failure
    }

    /// `HTTP 429` or `HTTP 503`, for a response that asked the client to back off.
    package var refusalCode: String? { code == .retryLater ? status.map { "HTTP \($0)" } : nil }
}
