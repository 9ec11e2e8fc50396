/// The instant a measurement must be over by, on a time base's monotonic clock: made once, when the
/// measurement starts, and handed to every wait inside it (name resolution, each exchange, a key
/// exchange, a queue to take a turn in), so that all of them together end by it. On the system's
/// clocks it counts time asleep and ignores wall-clock changes; on a hand-moved time base a test
/// moves past it without waiting.
package struct Deadline: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The instant, on the time base's monotonic clock.
    package let instant: MonotonicInstant

    /// The deadline at `instant`.
    package init(_ instant: MonotonicInstant) {
        self.instant = instant
    }

    /// The deadline `timeout` after `now`.
    package init(after timeout: Duration, from now: MonotonicInstant) {
        instant = now.advanced(by: max(.zero, timeout))
    }

    /// The deadline `timeout` from now on `timeBase`'s monotonic clock.
    package static func after(_ timeout: Duration, on timeBase: any TimeBase) -> Deadline {
        Deadline(after: timeout, from: timeBase.monotonicNow())
    }

    /// What is left of it at `now` (zero once it has passed).
    package func remaining(at now: MonotonicInstant) -> Duration {
        max(.zero, now.duration(to: instant))
    }

    /// What is left of it now on `timeBase`'s monotonic clock.
    package func remaining(on timeBase: any TimeBase) -> Duration {
        remaining(at: timeBase.monotonicNow())
    }

    /// Whether it has passed at `now`.
    package func hasPassed(at now: MonotonicInstant) -> Bool {
        now >= instant
    }

    /// The earlier of this deadline and `timeout` after `now`: a step that may take at most
    /// `timeout` of what is left.
    package func capping(_ timeout: Duration, from now: MonotonicInstant) -> Deadline {
        min(self, Deadline(after: timeout, from: now))
    }

    package static func < (lhs: Deadline, rhs: Deadline) -> Bool { lhs.instant < rhs.instant }

    package var description: String { "deadline at \(instant.nanoseconds) ns" }
}
