/// Server time − the device's wall clock, with hard bounds: what a one-shot measurement reports
/// (`timesync query`, an NTP query, an HTTP measurement), in one definition for the library, the
/// CLI's text and its JSON.
package struct WallClockOffset: Sendable, Hashable {
    /// The best estimate of server time − wall clock, positive when the server is ahead.
    package var estimate: Duration
    /// Hard bounds on server time − wall clock, in nanoseconds.
    package var bounds: OffsetInterval
    /// The device's wall clock the offset refers to.
    package var deviceTime: UnixTime

    /// Converts a calibration (bounds on server − monotonic time) with a pair of clock readings.
    /// - Parameters:
    ///   - calibration: The calibration.
    ///   - pair: The wall clock read between two monotonic readings; take it right before use.
    package init(_ calibration: Calibration, pair: WallClockPair) {
        let (theta, thetaBounds) = calibration.offset(at: pair.monotonic)
        let (estimate, bounds) = pair.wallOffset(estimate: theta, bounds: thetaBounds)
        self.estimate = .nanoseconds(estimate)
        self.bounds = bounds
        deviceTime = pair.wall
    }

    /// The error: half the width of ``bounds``. The truth lies within ``estimate`` ± this when the
    /// estimate is the bounds' midpoint, and always within ``bounds``.
    package var error: Duration { .nanoseconds(bounds.halfWidth) }

    /// The server's time at ``deviceTime``, by the estimate.
    package var serverTime: UnixTime { deviceTime.advanced(by: estimate) }
}
