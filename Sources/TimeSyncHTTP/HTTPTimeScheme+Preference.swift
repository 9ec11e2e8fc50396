extension HTTPTimeScheme {
    /// Which of the two standard schemes, `TimeSync-Time` and `Date`, a response may calibrate from.
    package enum Preference: String, Sendable, Hashable, Codable {
        /// `TimeSync-Time` when present, else `Date`.
        case preferTimeHeader
        /// Only `TimeSync-Time`; a response without it is rejected.
        case timeHeaderOnly
        /// Only `Date`, even when `TimeSync-Time` is present.
        case dateOnly
    }

    /// The schemes a preference stands for, in the order they are tried.
    package static func schemes(for preference: Preference) -> [HTTPTimeScheme] {
        switch preference {
        case .preferTimeHeader: [.timeSyncTime, .date]
        case .timeHeaderOnly: [.timeSyncTime]
        case .dateOnly: [.date]
        }
    }
}
