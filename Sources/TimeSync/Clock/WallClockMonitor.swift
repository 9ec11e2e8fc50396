/// Tamper detection: the wall clock against the monotonic clock, sans I/O.
///
/// wall − monotonic stays put while nobody sets the wall clock (time daemons slew it by far less
/// than the threshold); a move beyond the threshold since the last one reported is a change.
package struct WallClockMonitor: Sendable {
    /// wall − monotonic at the last change reported (or at the start), in nanoseconds.
    package private(set) var reference: Int64
    /// Moves up to this (nanoseconds) are not changes.
    package let threshold: UInt64

    package init(_ pair: WallClockPair, threshold: Duration) {
        reference = pair.wallMinusMonotonic
        self.threshold = threshold.nanosecondsClamped.magnitude
    }

    /// Compares a pair of readings with the reference.
    /// - Returns: How far the wall clock moved, when beyond the threshold (the reference then moves).
    package mutating func check(_ pair: WallClockPair) -> Duration? {
        let now = pair.wallMinusMonotonic
        let change = now.saturatingSubtract(reference)
        guard change.magnitude > threshold else { return nil }
        reference = now
        return .nanoseconds(change)
    }
}
