/// A countdown to a deadline, as an `AsyncSequence` of ticks aligned to whole ticks of remaining time
/// (a flash sale's "starts in 02:14:07").
///
/// The remaining time is recomputed from the monotonic clock at every tick, never counted down by
/// hand: changing the wall clock does nothing, and after the device sleeps the next tick shows the right
/// value at once — no stall, no burst of missed ticks, no second counted twice. The sequence emits a
/// final tick with ``CountdownTick/isFinished`` at zero, exactly once, and ends.
///
/// ```swift
/// for try await tick in clock.countdown(to: saleStart) {
///     label.text = tick.formatted   // "1d 02:03:04"
/// }
/// // the sale has started: refetch
/// ```
public struct Countdown: AsyncSequence, Sendable {

    /// Which point of an uncertain deadline the countdown runs to.
    package enum Edge: Sendable, Hashable {
        /// The best estimate.
        case estimate
        /// The point where the deadline has certainly passed (the latest bound): at zero, the sale has
        /// certainly started.
        case certain
    }

    enum Target: Sendable {
        /// A server-time deadline, read through a ``ServerClock``.
        case server(ServerClock, UnixTime, Edge)
        /// A deadline on the monotonic clock.
        case monotonic(any TimeBase, MonotonicInstant)
    }

    let target: Target
    let tick: Int64

    /// A countdown to a server-time deadline.
    /// - Parameters:
    ///   - deadline: The server time to count down to.
    ///   - clock: The clock that tells server time.
    ///   - tick: The tick length (default one second); ticks fall where the remaining time crosses a
    ///     whole multiple of it.
    ///   - untilCertain: Count to the instant the deadline has certainly passed (the clock's
    ///     earliest bound reaches it: at zero, the sale has certainly started) rather than to the
    ///     estimate.
    public init(to deadline: UnixTime, clock: ServerClock, tick: Duration = .seconds(1), untilCertain: Bool = false) {
        target = .server(clock, deadline, untilCertain ? .certain : .estimate)
        self.tick = Swift.max(1, tick.nanosecondsClamped)
    }

    /// A countdown to a deadline on the monotonic clock, such as one built from a server's "remaining
    /// seconds" with ``DeadlineInterval/remaining(_:resolution:requestSent:responseReceived:)``.
    /// - Parameters:
    ///   - deadline: The deadline's bounds on the monotonic clock.
    ///   - timeBase: The clocks the bounds were read on.
    ///   - tick: The tick length (default one second).
    ///   - untilCertain: Count to the deadline's latest bound (at zero it has certainly passed)
    ///     rather than to its estimate.
    public init(to deadline: DeadlineInterval, timeBase: any TimeBase, tick: Duration = .seconds(1), untilCertain: Bool = false) {
        target = .monotonic(timeBase, untilCertain ? deadline.latest : deadline.estimate)
        self.tick = Swift.max(1, tick.nanosecondsClamped)
    }

    var timeBase: any TimeBase {
        switch target {
        case .server(let clock, _, _): clock.timeBase
        case .monotonic(let timeBase, _): timeBase
        }
    }

    /// The remaining time in nanoseconds at a monotonic instant.
    func remaining(at monotonic: MonotonicInstant) -> Int64 {
        switch target {
        case .server(let clock, let deadline, let edge):
            let reading = clock.reading(at: monotonic)
            let now = edge == .estimate || !reading.vouchesForEarliest ? reading.serverTime : reading.earliest
            return deadline.nanoseconds.saturatingSubtract(now.nanoseconds)
        case .monotonic(_, let deadline):
            return deadline.nanoseconds.saturatingSubtract(monotonic.nanoseconds)
        }
    }

    /// Starts the ticks: the first is at once, the next at each whole tick of remaining time.
    /// - Throws (from `next()`): `CancellationError` when the task is cancelled while waiting.
    public func makeAsyncIterator() -> AsyncThrowingStream<CountdownTick, any Error>.Iterator {
        let ticks = Ticks(Iterator(countdown: self))
        return AsyncThrowingStream(unfolding: { try await ticks.next() }).makeAsyncIterator()
    }

    /// The iterator's state for the stream's one consumer.
    private final class Ticks: @unchecked Sendable {
        // `@unchecked Sendable` is safe: the stream calls `next()` for its one consumer, one call at a
        // time, so the state is never touched from two threads at once.
        private var iterator: Iterator

        init(_ iterator: Iterator) { self.iterator = iterator }

        func next() async throws -> CountdownTick? { try await iterator.next() }
    }

    /// Produces the ticks.
    package struct Iterator: AsyncIteratorProtocol {
        let countdown: Countdown
        var lastShown: Int64?
        var finished = false

        /// The next tick: at once for the first, then when the remaining time crosses the next whole
        /// tick. `nil` after the final tick.
        /// - Throws: `CancellationError` when the task is cancelled while waiting.
        package mutating func next() async throws -> CountdownTick? {
            guard !finished else { return nil }
            let timeBase = countdown.timeBase
            while true {
                let now = timeBase.monotonicNow()
                let remaining = countdown.remaining(at: now)
                if remaining <= 0 {
                    finished = true
                    return CountdownTick(remaining: .zero, shown: 0, tick: countdown.tick)
                }
                // Shown value: whole ticks left, rounded up (5.0 s … 4.000000001 s shows 5).
                let shown = (remaining - 1) / countdown.tick + 1
                if shown != lastShown {
                    lastShown = shown
                    return CountdownTick(remaining: .nanoseconds(remaining), shown: shown, tick: countdown.tick)
                }
                // Wait until the remaining time reaches the next boundary, then look again.
                let untilBoundary = remaining - (shown - 1) * countdown.tick
                try await timeBase.sleep(until: now.advanced(by: .nanoseconds(untilBoundary)))
            }
        }
    }
}

extension ServerClock {
    /// A countdown to a server-time deadline on this clock. See ``Countdown``.
    public func countdown(to deadline: UnixTime, tick: Duration = .seconds(1), untilCertain: Bool = false) -> Countdown {
        Countdown(to: deadline, clock: self, tick: tick, untilCertain: untilCertain)
    }
}
