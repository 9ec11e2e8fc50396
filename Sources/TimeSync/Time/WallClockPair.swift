/// The wall clock read together with the monotonic clock: what converts a bound on server − monotonic
/// time into a bound on server − wall clock.
///
/// The two clocks cannot be read at one instant. ``TimeBase/wallClockPair()`` reads the monotonic
/// clock, the wall clock, the monotonic clock again, and pairs the wall reading with the middle of the
/// two monotonic ones; ``uncertainty`` is half their gap. A thread preempted between the reads makes
/// the gap wide, never the conversion wrong.
package struct WallClockPair: Sendable, Hashable {
    /// The middle of the two monotonic readings around ``wall``.
    package var monotonic: MonotonicInstant
    /// The wall clock.
    package var wall: UnixTime
    /// How far ``wall`` may have been read from ``monotonic``, in nanoseconds (never negative).
    package var uncertainty: Int64

    /// Creates a pair.
    package init(monotonic: MonotonicInstant, wall: UnixTime, uncertainty: Int64) {
        self.monotonic = monotonic
        self.wall = wall
        self.uncertainty = max(0, uncertainty)
    }

    /// A pair read with no uncertainty: for conversions that need no bound (a wall-clock time to
    /// schedule on, a device time to convert).
    package init(monotonic: MonotonicInstant, wall: UnixTime) {
        self.init(monotonic: monotonic, wall: wall, uncertainty: 0)
    }

    /// wall − monotonic, in nanoseconds: what carries an instant from one clock to the other.
    package var wallMinusMonotonic: Int64 { wall.nanoseconds.saturatingSubtract(monotonic.nanoseconds) }

    /// The wall-clock time at a monotonic instant, as long as nobody sets the wall clock.
    package func wall(at instant: MonotonicInstant) -> UnixTime {
        // Carried from the pair's wall reading: exact at the pair's own instant, even where the sums saturate.
        UnixTime(nanoseconds: wall.nanoseconds.saturatingAdd(instant.nanoseconds.saturatingSubtract(monotonic.nanoseconds)))
    }

    /// The monotonic instant at a wall-clock time, as long as nobody sets the wall clock.
    package func monotonic(at time: UnixTime) -> MonotonicInstant {
        MonotonicInstant(nanoseconds: monotonic.nanoseconds.saturatingAdd(time.nanoseconds.saturatingSubtract(wall.nanoseconds)))
    }

    /// Converts bounds on θ = server − monotonic time, valid at ``monotonic``, to bounds on server −
    /// wall clock, widened by ``uncertainty``.
    /// - Parameters:
    ///   - estimate: The estimate of θ at ``monotonic``.
    ///   - bounds: The bounds of θ at ``monotonic``.
    /// - Returns: The estimate (clamped into the bounds) and the bounds of server − wall clock, in
    ///   nanoseconds, positive when the server is ahead.
    package func wallOffset(estimate: Int64, bounds: OffsetInterval) -> (estimate: Int64, bounds: OffsetInterval) {
        let shift = monotonic.nanoseconds.saturatingSubtract(wall.nanoseconds)
        let wallBounds = bounds.shifted(by: shift).widened(by: uncertainty)
        return (wallBounds.clamp(estimate.saturatingAdd(shift)), wallBounds)
    }
}
