/// The clocks a ``ServerClock`` stands on: a monotonic clock that counts through sleep, the device's
/// wall clock, and a way to sleep on the monotonic clock.
///
/// `SystemTimeBase` reads the real clocks; `ManualTimeBase` lets tests and simulations move time
/// by hand. A library never reads a clock on its own: pass a time base in.
///
/// A time base is a Swift `Clock` on its monotonic clock (its `now` is ``monotonicNow()``), so
/// `Task.sleep(until:clock:)` and `Clock.measure(_:)` work with any time base: in an app's own tests,
/// `TimeSyncTesting`'s `ManualTimeBase` is a clock they advance by hand.
public protocol TimeBase: Clock where Instant == MonotonicInstant {
    /// The monotonic clock: counts through device sleep, ignores wall-clock changes.
    func monotonicNow() -> MonotonicInstant
    /// The device's wall clock (which the user can change at any time).
    func wallNow() -> UnixTime
    /// Suspends until the monotonic clock reaches `deadline`.
    /// - Throws: `CancellationError` when the task is cancelled.
    func sleep(until deadline: MonotonicInstant) async throws
    /// Suspends until the monotonic clock reaches `deadline`, letting the system wake up to
    /// `tolerance` later so that it can group wake-ups and save energy. The library asks for a tenth
    /// of the wait (at most a minute) where lateness costs nothing but a later answer, such as the
    /// next poll, and for none where the instant matters, such as an exchange's deadline. The
    /// default implementation ignores the tolerance.
    /// - Throws: `CancellationError` when the task is cancelled.
    func sleep(until deadline: MonotonicInstant, tolerance: Duration) async throws
    /// An identifier of the current boot session, or `nil` when the platform gives none.
    /// Monotonic readings are comparable only while it stays the same.
    var bootSessionID: String? { get }
}

extension TimeBase {
    public func sleep(until deadline: MonotonicInstant, tolerance: Duration) async throws {
        try await sleep(until: deadline)
    }

    /// The monotonic clock's reading, as a `Clock`'s `now`.
    public var now: MonotonicInstant { monotonicNow() }

    /// One nanosecond: the resolution of ``MonotonicInstant``.
    public var minimumResolution: Duration { .nanoseconds(1) }

    /// Suspends until the monotonic clock reaches `deadline`, as a `Clock` sleeps (no tolerance: none).
    public func sleep(until deadline: MonotonicInstant, tolerance: Duration?) async throws {
        try await sleep(until: deadline, tolerance: tolerance ?? .zero)
    }

    /// Reads the wall clock between two monotonic readings (see `WallClockPair`); when a read is
    /// interrupted (a gap over 20 µs) it tries again, up to four times, and keeps the tightest.
    package func wallClockPair() -> WallClockPair {
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
