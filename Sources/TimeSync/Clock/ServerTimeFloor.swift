/// A lower bound on server time that survives a reboot.
///
/// Time only moves forward: once the clock vouched that server time was at least `earliest`, it is at
/// least that ever after, and more by the time elapsed since, counted on the monotonic clock at the
/// slowest the drift bound allows. The upper bound does not survive: after a reboot the device clock
/// may be anything.
package struct ServerTimeFloor: Sendable, Hashable {
    /// Server time was at least this at ``since``.
    package let earliest: UnixTime
    /// The monotonic instant (of this boot session) from which the floor counts.
    package let since: MonotonicInstant

    package init(earliest: UnixTime, since: MonotonicInstant) {
        self.earliest = earliest
        self.since = since
    }

    /// The floor at `monotonic`: ``earliest`` plus the time elapsed since ``since`` at the slowest
    /// rate `maxDrift` allows (never less than ``earliest``).
    package func earliest(at monotonic: MonotonicInstant, maxDrift: Double) -> UnixTime {
        let elapsed = monotonic.nanoseconds.saturatingSubtract(since.nanoseconds)
        guard elapsed > 0 else { return earliest }
        let slowest = Int64((Double(elapsed) * (1 - min(max(maxDrift, 0), 0.01))).rounded(.down))
        return UnixTime(nanoseconds: earliest.nanoseconds.saturatingAdd(slowest))
    }
}
