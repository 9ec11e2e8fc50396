/// How the device's own clock stands against server time, within a tolerance: what an app checks
/// before it warns "your device's clock is wrong", or before it refuses a check that trusts the
/// device clock. Offsets are server time − device clock; the device is *ahead* when its clock shows
/// a later time than the server's.
///
/// Every answer but ``unknown`` is certain: the clock's bounds lie wholly within the tolerance, or
/// wholly beyond it.
///
/// ```swift
/// switch clock.deviceClockCheck(tolerance: .seconds(60)) {
/// case .withinTolerance: break
/// case .ahead(let by, _), .behind(let by, _): showClockWarning(off: by)
/// case .unknown: break  // not synchronized yet, or too close to the tolerance to tell
/// }
/// ```
public enum DeviceClockCheck: Sendable, Hashable {
    /// The device clock is within the tolerance of server time: `offset` is the estimate of server
    /// time − device clock, and `error` its bound.
    case withinTolerance(offset: Duration, error: Duration)
    /// The device clock is ahead of server time by more than the tolerance: by `by` (the estimate),
    /// within `error`.
    case ahead(by: Duration, error: Duration)
    /// The device clock is behind server time by more than the tolerance: by `by` (the estimate),
    /// within `error`. With only a floor kept across a reboot (``SynchronizationStatus/floorOnly``)
    /// the clock knows just how far behind it is at least: `by` is that, and `error` is `nil`.
    case behind(by: Duration, error: Duration?)
    /// The clock cannot tell: it is not synchronized (nor holds a floor the device clock is below),
    /// or its error straddles the tolerance.
    case unknown
}

extension ClockReading {
    /// Checks a device clock reading `deviceTime`, taken at this reading's instant, against this
    /// reading, within `tolerance` (a negative tolerance counts as zero).
    public func deviceClockCheck(deviceTime: UnixTime, tolerance: Duration) -> DeviceClockCheck {
        let tolerance = max(0, tolerance.nanosecondsClamped)
        let device = deviceTime.nanoseconds
        let lower = earliest.nanoseconds.saturatingSubtract(device)
        switch status {
        case .synchronized:
            let upper = latest.nanoseconds.saturatingSubtract(device)
            let estimate = serverTime.nanoseconds.saturatingSubtract(device)
            let error = Duration.nanoseconds(upper.saturatingSubtract(lower) / 2)
            if lower >= -tolerance, upper <= tolerance { return .withinTolerance(offset: .nanoseconds(estimate), error: error) }
            if upper < -tolerance { return .ahead(by: .nanoseconds(estimate == .min ? .max : -estimate), error: error) }
            if lower > tolerance { return .behind(by: .nanoseconds(estimate), error: error) }
            return .unknown
        case .floorOnly:
            return lower > tolerance ? .behind(by: .nanoseconds(lower), error: nil) : .unknown
        case .unsynchronized, .noMajority, .provisional:
            return .unknown
        }
    }
}

extension ServerClock {
    /// Checks the device's wall clock against server time now, within `tolerance`: see
    /// ``DeviceClockCheck``. A `ServerClockEvent.wallClockChanged(by:)` event says when the answer
    /// may have changed.
    public func deviceClockCheck(tolerance: Duration) -> DeviceClockCheck {
        let pair = timeBase.wallClockPair()
        return reading(at: pair.monotonic).deviceClockCheck(deviceTime: pair.wall, tolerance: tolerance)
    }
}
