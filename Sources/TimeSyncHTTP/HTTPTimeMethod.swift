import HTTPTypes
import TimeSync

/// How a sample was obtained from a response.
public enum HTTPTimeMethod: String, Sendable, Hashable, Codable {
    /// From the `TimeSync-Time` header: t2 and t3 with nanosecond resolution.
    case timeHeader = "header"
    /// From the `Date` header: a one-second timestamp.
    case date = "date"
    /// From a Unix timestamp header (``HTTPTimeScheme/unixTimestamp(header:unit:)``).
    case unixTimestamp = "timestamp"
    /// From a custom scheme (``HTTPTimeScheme/custom(name:_:)``).
    case custom = "custom"
}
