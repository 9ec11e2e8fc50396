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

/// One reading of a ``ServerClock``: the estimated server time and hard bounds on it, like TrueTime's
/// `TT.now()`.
public struct ClockReading: Sendable, Hashable {
    /// The best estimate of the server's time now.
    public var serverTime: UnixTime
    /// The server's time is no earlier than this. Unsynchronized: the earliest representable time.
    public var earliest: UnixTime
    /// The server's time is no later than this. Unsynchronized: the latest representable time.
    public var latest: UnixTime
    /// Whether the clock vouches for the reading.
    public var status: SynchronizationStatus
    /// The monotonic instant of the reading.
    public var monotonicTime: MonotonicInstant
    /// How long ago (monotonic) the calibration was made; `nil` before the first one.
    public var calibrationAge: Duration?
    /// Whether the reading comes only from a calibration restored from the store: no source has
    /// answered since launch. Its bounds still hold (the store is authenticated, and its calibration
    /// ages at the drift bound), but nothing confirms it yet; the first sources to answer decide.
    public var isRestored: Bool = false

    /// Whether the clock is synchronized (a majority of sources agree).
    public var isSynchronized: Bool { status == .synchronized }
    /// The error: half the width of the bounds (``WallClockOffset/error`` is the same quantity). The
    /// server's time is always within ``earliest`` … ``latest``.
    public var error: Duration {
        .nanoseconds(latest.nanoseconds.saturatingSubtract(earliest.nanoseconds) / 2)
    }
    /// Unix time in whole seconds.
    public var unixSeconds: Int64 { serverTime.seconds }
    /// Unix time in milliseconds.
    public var unixMilliseconds: Int64 { serverTime.milliseconds }
    /// Unix time in nanoseconds.
    public var unixNanoseconds: Int64 { serverTime.nanoseconds }
    /// The estimate as a Foundation `Date`.
    public var date: Date { serverTime.date }

    /// Where the reading stands relative to a server-time window, such as a promotion.
    ///
    /// `.before` and `.after` are certain: the whole error interval is outside the window. `.within`
    /// is certain too. When the bounds straddle an edge, or the clock is not synchronized, the answer
    /// is `.uncertain`.
    public func position(in window: Range<UnixTime>) -> WindowPosition {
        guard isSynchronized else { return .uncertain }
        if latest < window.lowerBound { return .before }
        if earliest >= window.upperBound { return .after }
        if earliest >= window.lowerBound && latest < window.upperBound { return .within }
        return .uncertain
    }
}

/// Where a reading stands relative to a window of server time.
public enum WindowPosition: String, Sendable, Hashable, Codable {
    /// Certainly before the window opens.
    case before
    /// Certainly inside the window.
    case within
    /// Certainly after the window closed.
    case after
    /// The error bounds straddle an edge (or the clock is not synchronized): cannot tell.
    case uncertain
}

/// What happens to a ``ServerClock``, as an `AsyncSequence` from ``ServerClock/events(bufferingNewest:)``.
public enum ServerClockEvent: Sendable, Hashable {
    /// A sample produced a calibration; the reading is taken at that moment.
    case calibrated(ClockReading)
    /// A recalibration moved the estimate by more than ``ServerClock/Configuration/offsetChangeThreshold``.
    case offsetChanged(by: Duration)
    /// The device's wall clock moved against the monotonic clock (the user or the system changed it).
    case wallClockChanged(by: Duration)
    /// A source stopped answering while others went on, and was dropped.
    case sourceLost(String)
    /// Sources disagree and no majority agrees on the time.
    case noMajority(sources: Int, largestAgreeing: Int)
    /// A sample was rejected; the clock is unchanged.
    case sampleRejected(source: String, reason: String)
    /// A stored calibration was restored at start. The clock's initializer restores before anyone can
    /// subscribe, so a subscriber sees this only from a later restore; check ``ServerClock/isSynchronized``
    /// after creating the clock instead.
    case restored(Calibration)
    /// A stored calibration was not used (another boot session, unreadable or corrupt). Sent while the
    /// clock is created, before anyone can subscribe: the initializer's `onWarning` receives it.
    case storeIgnored(reason: String)
    /// Writing the store failed; the clock is unchanged and the next write tries again.
    case storeFailed(reason: String)
    /// The clock's status changed (for example `provisional` → `synchronized` as more sources agree).
    case statusChanged(from: SynchronizationStatus, to: SynchronizationStatus)
}
