import Foundation

/// One reading of a ``ServerClock``: the estimated server time and hard bounds on it, like TrueTime's
/// `TT.now()`.
public struct ClockReading: Sendable, Hashable {
    /// The best estimate of the server's time now.
    public var serverTime: UnixTime
    /// The server's time is no earlier than this. Unsynchronized: the earliest representable time;
    /// ``SynchronizationStatus/floorOnly``: the floor the clock kept across a reboot.
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
    /// The error: half the width of the bounds (`WallClockOffset.error` is the same quantity). The
    /// server's time is within ``earliest`` … ``latest`` as long as the sources keep to the model
    /// the bounds assume (each slews at most `EstimatorConfiguration.serverSlew` and never steps;
    /// see ``SynchronizationStatus/synchronized``); a source that breaks it is caught by its next
    /// sample.
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

    /// Whether the clock vouches for ``earliest``: synchronized, or a floor kept across a reboot.
    package var vouchesForEarliest: Bool { status == .synchronized || status == .floorOnly }

    /// Where the reading stands relative to a server-time window, such as a promotion.
    ///
    /// `.before` and `.after` are certain: the whole error interval is outside the window. `.within`
    /// is certain too. When the bounds straddle an edge, or the clock is not synchronized, the answer
    /// is `.uncertain`. With only a floor (``SynchronizationStatus/floorOnly``), a window wholly
    /// before the floor is `.after`, and anything else `.uncertain`.
    public func position(in window: Range<UnixTime>) -> WindowPosition {
        guard vouchesForEarliest else { return .uncertain }
        if earliest >= window.upperBound { return .after }
        guard isSynchronized else { return .uncertain }
        if latest < window.lowerBound { return .before }
        if earliest >= window.lowerBound && latest < window.upperBound { return .within }
        return .uncertain
    }

    /// Whether server time has certainly reached `instant`: the clock vouches (synchronized, or with
    /// a floor kept across a reboot) that it is no earlier. `false` whenever that is not certain.
    public func hasCertainlyPassed(_ instant: UnixTime) -> Bool {
        vouchesForEarliest && earliest >= instant
    }
}
