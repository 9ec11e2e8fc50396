/// One tick of a ``Countdown``.
public struct CountdownTick: Sendable, Hashable {
    /// The exact remaining time when the tick was made.
    public let remaining: Duration
    /// The remaining time in whole ticks, rounded up: what a display shows (0 at the end).
    public let shown: Int64
    /// The tick length in nanoseconds.
    let tick: Int64

    init(remaining: Duration, shown: Int64, tick: Int64) {
        self.remaining = remaining
        self.shown = shown
        self.tick = tick
    }

    /// Whether this is the final tick, at zero.
    public var isFinished: Bool { shown == 0 }

    /// The shown remaining time in whole seconds.
    public var totalSeconds: Int64 { (shown * tick) / 1_000_000_000 }
    /// Whole days of ``totalSeconds``.
    public var days: Int64 { totalSeconds / 86_400 }
    /// Hours (0–23) of ``totalSeconds``.
    public var hours: Int64 { totalSeconds / 3600 % 24 }
    /// Minutes (0–59) of ``totalSeconds``.
    public var minutes: Int64 { totalSeconds / 60 % 60 }
    /// Seconds (0–59) of ``totalSeconds``.
    public var seconds: Int64 { totalSeconds % 60 }

    /// `HH:MM:SS`, prefixed by `Nd ` when a day or more is left.
    public var formatted: String {
        let clock = [hours, minutes, seconds].map { $0 < 10 ? "0\($0)" : "\($0)" }.joined(separator: ":")
        return days > 0 ? "\(days)d \(clock)" : clock
    }
}
