/// How late a wait may end: the leeway a sleep asks for so that the system can group wake-ups
/// (Apple's energy guidance for timers: a tolerance of about a tenth of the interval).
///
/// Waits whose lateness costs nothing but a later answer take a tenth of the wait, at most a minute:
/// the next poll, a wall-clock check, a deferred store write, a new resolution of a pool's name.
/// Waits whose instant matters take none: an exchange's deadline, the spacing of a series, the
/// instants a `Date` refinement sends at, a countdown's ticks.
package enum SleepTolerance {
    /// The most a wait is let run late.
    package static let maximum = Duration.seconds(60)

    /// The leeway for a wait of `wait`: a tenth of it, at most ``maximum``, none for a wait of zero
    /// or less.
    package static func forWait(_ wait: Duration) -> Duration {
        guard wait > .zero else { return .zero }
        return min(wait / 10, maximum)
    }
}
