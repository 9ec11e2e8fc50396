import HTTPTypes
import TimeSync

/// Which headers a response may calibrate from.
public enum HTTPTimeHeaderPolicy: String, Sendable, Hashable, Codable {
    /// `TimeSync-Time` when present, else `Date`.
    case preferTimeHeader
    /// Only `TimeSync-Time`; a response without it is rejected.
    case timeHeaderOnly
    /// Only `Date`, even when `TimeSync-Time` is present.
    case dateOnly
}
