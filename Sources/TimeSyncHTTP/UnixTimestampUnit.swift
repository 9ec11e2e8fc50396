import TimeSync

/// The unit of a Unix timestamp header.
public enum UnixTimestampUnit: String, Sendable, Hashable, Codable, CaseIterable {
    /// Whole seconds since 1970 (`1732390000`).
    case seconds
    /// Milliseconds since 1970 (`1732390000123`), the usual `Response-Timestamp`.
    case milliseconds
    /// Microseconds since 1970.
    case microseconds
    /// Nanoseconds since 1970.
    case nanoseconds

    /// One unit, in nanoseconds.
    var nanoseconds: Int64 {
        switch self {
        case .seconds: 1_000_000_000
        case .milliseconds: 1_000_000
        case .microseconds: 1_000
        case .nanoseconds: 1
        }
    }
}
