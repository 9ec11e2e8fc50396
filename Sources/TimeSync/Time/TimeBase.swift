/// The clocks a ``ServerClock`` stands on: a monotonic clock that counts through sleep, the device's
/// wall clock, and a way to sleep on the monotonic clock.
///
/// ``SystemTimeBase`` reads the real clocks; `ManualTimeBase` lets tests and simulations move time
/// by hand. A library never reads a clock on its own: pass a time base in.
public protocol TimeBase: Sendable {
    /// The monotonic clock: counts through device sleep, ignores wall-clock changes.
    func monotonicNow() -> MonotonicInstant
    /// The device's wall clock (which the user can change at any time).
    func wallNow() -> UnixTime
    /// Suspends until the monotonic clock reaches `deadline`.
    /// - Throws: `CancellationError` when the task is cancelled.
    func sleep(until deadline: MonotonicInstant) async throws
    /// An identifier of the current boot session, or `nil` when the platform gives none.
    /// Monotonic readings are comparable only while it stays the same.
    var bootSessionID: String? { get }
}

/// The real clocks of this device.
///
/// - Monotonic: `CLOCK_BOOTTIME` on Linux, `CLOCK_MONOTONIC_RAW` (continuous time) on Apple platforms.
/// - Wall: `CLOCK_REALTIME`.
/// - Boot session: `/proc/sys/kernel/random/boot_id` on Linux, `kern.bootsessionuuid` on Apple platforms.
public struct SystemTimeBase: TimeBase {
    /// Creates the system time base.
    public init() {}

    @inlinable
    public func monotonicNow() -> MonotonicInstant {
        MonotonicInstant(nanoseconds: SystemClocks.monotonicNanoseconds())
    }

    @inlinable
    public func wallNow() -> UnixTime {
        UnixTime(nanoseconds: SystemClocks.wallNanoseconds())
    }

    public func sleep(until deadline: MonotonicInstant) async throws {
        // Relative sleeps on the continuous clock, re-checked against the boot clock, so a
        // suspension or a late wake-up never makes us wake early.
        while true {
            let remaining = deadline.nanoseconds - SystemClocks.monotonicNanoseconds()
            if remaining <= 0 { return }
            try await Task.sleep(for: .nanoseconds(remaining), tolerance: .zero, clock: .continuous)
        }
    }

    public var bootSessionID: String? { BootSession.currentID }
}

/// The wall clock read together with the monotonic clock: what converts a bound on server − monotonic
/// time into a bound on server − wall clock.
///
/// The two clocks cannot be read at one instant. ``TimeBase/wallClockPair()`` reads the monotonic
/// clock, the wall clock, the monotonic clock again, and pairs the wall reading with the middle of the
/// two monotonic ones; ``uncertainty`` is half their gap. A thread preempted between the reads makes
/// the gap wide, never the conversion wrong.
public struct WallClockPair: Sendable, Hashable {
    /// The middle of the two monotonic readings around ``wall``.
    public var monotonic: MonotonicInstant
    /// The wall clock.
    public var wall: UnixTime
    /// How far ``wall`` may have been read from ``monotonic``, in nanoseconds (never negative).
    public var uncertainty: Int64

    /// Creates a pair.
    public init(monotonic: MonotonicInstant, wall: UnixTime, uncertainty: Int64) {
        self.monotonic = monotonic
        self.wall = wall
        self.uncertainty = max(0, uncertainty)
    }

    /// A pair read with no uncertainty: for conversions that need no bound (a wall-clock time to
    /// schedule on, a device time to convert).
    public init(monotonic: MonotonicInstant, wall: UnixTime) {
        self.init(monotonic: monotonic, wall: wall, uncertainty: 0)
    }

    /// wall − monotonic, in nanoseconds: what carries an instant from one clock to the other.
    public var wallMinusMonotonic: Int64 { wall.nanoseconds.saturatingSubtract(monotonic.nanoseconds) }

    /// The wall-clock time at a monotonic instant, as long as nobody sets the wall clock.
    public func wall(at instant: MonotonicInstant) -> UnixTime {
        UnixTime(nanoseconds: instant.nanoseconds.saturatingAdd(wallMinusMonotonic))
    }

    /// The monotonic instant at a wall-clock time, as long as nobody sets the wall clock.
    public func monotonic(at time: UnixTime) -> MonotonicInstant {
        MonotonicInstant(nanoseconds: time.nanoseconds.saturatingSubtract(wallMinusMonotonic))
    }

    /// Converts bounds on θ = server − monotonic time, valid at ``monotonic``, to bounds on server −
    /// wall clock, widened by ``uncertainty``.
    /// - Parameters:
    ///   - estimate: The estimate of θ at ``monotonic``.
    ///   - bounds: The bounds of θ at ``monotonic``.
    /// - Returns: The estimate (clamped into the bounds) and the bounds of server − wall clock, in
    ///   nanoseconds, positive when the server is ahead.
    public func wallOffset(estimate: Int64, bounds: OffsetInterval) -> (estimate: Int64, bounds: OffsetInterval) {
        let shift = monotonic.nanoseconds.saturatingSubtract(wall.nanoseconds)
        let wallBounds = bounds.shifted(by: shift).widened(by: uncertainty)
        return (wallBounds.clamp(estimate.saturatingAdd(shift)), wallBounds)
    }
}

/// Server time − the device's wall clock, with hard bounds: what a one-shot measurement reports
/// (`timesync query`, an NTP query, an HTTP measurement), in one definition for the library, the
/// CLI's text and its JSON.
public struct WallClockOffset: Sendable, Hashable {
    /// The best estimate of server time − wall clock, positive when the server is ahead.
    public var estimate: Duration
    /// Hard bounds on server time − wall clock, in nanoseconds.
    public var bounds: OffsetInterval
    /// The device's wall clock the offset refers to.
    public var deviceTime: UnixTime

    /// Converts a calibration (bounds on server − monotonic time) with a pair of clock readings.
    /// - Parameters:
    ///   - calibration: The calibration.
    ///   - pair: The wall clock read between two monotonic readings; take it right before use.
    public init(_ calibration: Calibration, pair: WallClockPair) {
        let (theta, thetaBounds) = calibration.offset(at: pair.monotonic)
        let (estimate, bounds) = pair.wallOffset(estimate: theta, bounds: thetaBounds)
        self.estimate = .nanoseconds(estimate)
        self.bounds = bounds
        deviceTime = pair.wall
    }

    /// The error: half the width of ``bounds``. The truth lies within ``estimate`` ± this when the
    /// estimate is the bounds' midpoint, and always within ``bounds``.
    public var error: Duration { .nanoseconds(bounds.halfWidth) }

    /// The server's time at ``deviceTime``, by the estimate.
    public var serverTime: UnixTime { deviceTime.advanced(by: estimate) }
}

extension TimeBase {
    /// Reads the wall clock between two monotonic readings (see ``WallClockPair``); when a read is
    /// interrupted (a gap over 20 µs) it tries again, up to four times, and keeps the tightest.
    public func wallClockPair() -> WallClockPair {
        var best: WallClockPair?
        for _ in 0..<4 {
            let before = monotonicNow()
            let wall = wallNow()
            let after = monotonicNow()
            let gap = max(0, after.nanoseconds.saturatingSubtract(before.nanoseconds))
            let pair = WallClockPair(
                monotonic: MonotonicInstant(nanoseconds: before.nanoseconds.saturatingAdd(gap / 2)), wall: wall,
                uncertainty: gap - gap / 2)
            if best.map({ pair.uncertainty < $0.uncertainty }) ?? true { best = pair }
            if gap <= 20_000 { break }
        }
        return best!
    }
}
