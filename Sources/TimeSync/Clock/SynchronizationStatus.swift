import Foundation

/// Whether a ``ServerClock`` can vouch for its time.
public enum SynchronizationStatus: UInt8, Sendable, Hashable, Codable, CustomStringConvertible {
    /// Never calibrated (or reset): readings are the device's wall clock, with unbounded error.
    case unsynchronized = 0
    /// Calibrated, and at least ``ServerClock/Configuration/minimumAgreeingSources`` sources agree,
    /// a majority of those heard.
    case synchronized = 1
    /// Sources disagree and no majority agrees: the last good calibration still ages, but the clock
    /// does not vouch for it.
    case noMajority = 2
    /// Calibrated, but by fewer agreeing sources than ``ServerClock/Configuration/minimumAgreeingSources``
    /// (the first of several servers answered, the others not yet): the reading and its bounds are
    /// usable, but one lying server could have made them. ``ClockReading/position(in:)`` answers
    /// `.uncertain`.
    case provisional = 3

    public var description: String {
        switch self {
        case .unsynchronized: "unsynchronized"
        case .synchronized: "synchronized"
        case .noMajority: "no majority"
        case .provisional: "provisional"
        }
    }
}
