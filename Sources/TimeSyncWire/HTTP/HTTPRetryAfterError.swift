import TimeSync

/// Why a `Retry-After` value could not be read. A client that gets one treats the response as if it
/// carried no `Retry-After`.
///
/// Match on ``code`` (`error.code == .negative`).
public struct HTTPRetryAfterError: CodedError {
    /// The kinds of unreadable `Retry-After`.
    public enum Code: Sendable, Hashable {
        /// The value is empty (or only whitespace).
        case empty
        /// The value is a negative number of seconds.
        case negative
        /// The value is neither delta-seconds nor an HTTP-date.
        case malformed
    }

    /// Which kind of failure this is.
    public let code: Code
    /// For ``malformed``: the `HTTPDateError` that says why the value is not an HTTP-date either.
    public let underlying: (any Error)?

    init(_ code: Code, underlying: (any Error)? = nil) {
        self.code = code
        self.underlying = underlying
    }

    /// The value is empty (or only whitespace).
    public static let empty = HTTPRetryAfterError(.empty)
    /// The value is a negative number of seconds.
    public static let negative = HTTPRetryAfterError(.negative)
    /// The value is neither delta-seconds nor an HTTP-date (see ``underlying``).
    public static let malformed = HTTPRetryAfterError(.malformed)

    /// A human-readable explanation.
    public var description: String {
        switch code {
        case .empty: "empty Retry-After"
        case .negative: "negative Retry-After"
        case .malformed: "Retry-After is neither delta-seconds nor an HTTP-date" + (underlying.map { " (\($0))" } ?? "")
        }
    }
}
