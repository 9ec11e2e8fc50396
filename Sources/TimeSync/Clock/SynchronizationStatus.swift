import Foundation

/// Whether a ``ServerClock`` can vouch for its time.
public enum SynchronizationStatus: UInt8, Sendable, Hashable, Codable, CustomStringConvertible {
    /// Never calibrated (or reset): readings are the device's wall clock, with unbounded error.
    case unsynchronized = 0
    /// Calibrated, and at least `ServerClock.Configuration.minimumAgreeingSources` sources agree,
    /// a majority of those heard.
    ///
    /// What the bounds assume: each source's clock moves at most
    /// `EstimatorConfiguration.serverSlew` (500 ppm) away from its measured course between samples,
    /// up to `EstimatorConfiguration.serverSlewLimit` (128 ms) in all, and never steps; this
    /// device's clock drifts at most `EstimatorConfiguration.maxDrift`. A source that breaks the
    /// model (it steps, or slews faster) is caught by its next sample, which contradicts the earlier
    /// ones: the source becomes a suspect until a second sample confirms its new course, and the
    /// others keep the clock. Until that sample, nothing can see the break: readings between the break
    /// and the next poll may lie outside their bounds by the break's size. With several sources the
    /// others outvote a broken one at once; with a single source (`ServerClock.Configuration.minimumAgreeingSources` is then
    /// 1) that source is trusted alone, and a break shows only at its next poll. When "certainly"
    /// matters, configure three or more sources, or an authenticated Roughtime source whose signed
    /// interval no other source may leave.
    case synchronized = 1
    /// Sources disagree and no majority agrees: the last good calibration still ages, but the clock
    /// does not vouch for it.
    case noMajority = 2
    /// Calibrated, but by fewer agreeing sources than `ServerClock.Configuration.minimumAgreeingSources`
    /// (the first of several servers answered, the others not yet): the reading and its bounds are
    /// usable, but one lying server could have made them. ``ClockReading/position(in:)`` answers
    /// `.uncertain`.
    case provisional = 3
    /// No usable calibration, but a floor: the clock vouched, before a reboot (or before its sources
    /// fell silent and were reset), that server time had reached a point, and time only moves
    /// forward. ``ClockReading/earliest`` is that floor, counted on since at the slowest the drift
    /// bound allows, and ``ClockReading/latest`` is unbounded: a moment before the floor has
    /// certainly passed (``ClockReading/hasCertainlyPassed(_:)``); nothing after it is certain.
    case floorOnly = 4

    public var description: String {
        switch self {
        case .unsynchronized: "unsynchronized"
        case .synchronized: "synchronized"
        case .noMajority: "no majority"
        case .provisional: "provisional"
        case .floorOnly: "floor only"
        }
    }
}
