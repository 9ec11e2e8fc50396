extension HTTPTimeScheme {
    /// Which kind of scheme a sample came from: what an observation or a measurement reports.
    package enum Kind: String, Sendable, Hashable, Codable {
        /// From the `TimeSync-Time` header: t2 and t3 with nanosecond resolution.
        case timeHeader = "header"
        /// From the `Date` header: a one-second timestamp.
        case date = "date"
        /// From a Unix timestamp header (``HTTPTimeScheme/unixTimestamp(header:unit:)``).
        case unixTimestamp = "timestamp"
        /// From a custom scheme (``HTTPTimeScheme/custom(name:_:)``).
        case custom = "custom"
    }

    /// The kind of this scheme.
    package var kind: Kind {
        switch self {
        case .timeSyncTime: .timeHeader
        case .date: .date
        case .unixTimestamp: .unixTimestamp
        case .custom: .custom
        }
    }
}
