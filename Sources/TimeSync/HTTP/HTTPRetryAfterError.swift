/// Why a `Retry-After` value could not be read. A client that gets one treats the response as if it
/// carried no `Retry-After`.
public struct HTTPRetryAfterError: Error, Sendable, Hashable, CustomStringConvertible {
    enum Code: Sendable, Hashable {
        case empty, negative, malformed
    }

    let code: Code
    /// For ``malformed``: why the value is not an HTTP-date either.
    public let dateError: HTTPDateError?

    init(_ code: Code, dateError: HTTPDateError? = nil) {
        self.code = code
        self.dateError = dateError
    }

    /// Two errors are equal when they are the same kind.
    public static func == (lhs: HTTPRetryAfterError, rhs: HTTPRetryAfterError) -> Bool { lhs.code == rhs.code }

    /// Hashes the kind of error (consistent with ``==(_:_:)``).
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// The value is empty (or only whitespace).
    public static let empty = HTTPRetryAfterError(.empty)
    /// The value is a negative number of seconds.
    public static let negative = HTTPRetryAfterError(.negative)
    /// The value is neither delta-seconds nor an HTTP-date (see ``dateError``).
    public static let malformed = HTTPRetryAfterError(.malformed)

    /// A human-readable explanation.
    public var description: String {
        switch code {
        case .empty: "empty Retry-After"
        case .negative: "negative Retry-After"
        case .malformed: "Retry-After is neither delta-seconds nor an HTTP-date" + (dateError.map { " (\($0))" } ?? "")
        }
    }
}
