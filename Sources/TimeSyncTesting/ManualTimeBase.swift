import TimeSync

/// A time base moved by hand, for tests and simulations: nothing happens until you advance it.
///
/// Like swift-clocks' `TestClock`: sleepers wake when ``advance(by:)`` moves the monotonic clock past
/// their deadline. The wall clock moves with the monotonic clock and can also jump on its own
/// (``jumpWall(by:)``), as when a user changes the device's time. ``reboot(bootSessionID:monotonic:)`` starts a
/// new boot session.
public final class ManualTimeBase: TimeBase {
    private struct State: Sendable {
        var monotonic: MonotonicInstant
        var wall: UnixTime
        var bootSessionID: String?
        /// The deadline of each sleeping task; ``advance(by:)`` removes those it reaches.
        var sleepers: [UInt64: MonotonicInstant] = [:]
        var nextID: UInt64 = 0
    }

    private let state: Locked<State>
    private let waiters = Waiters()

    /// Creates a time base.
    /// - Parameters:
    ///   - monotonic: The starting monotonic reading (default: 1000 s after boot).
    ///   - wall: The starting wall-clock time (default: 2026-01-01T00:00:00Z).
    ///   - bootSessionID: The boot session's identifier.
    public init(
        monotonic: MonotonicInstant = MonotonicInstant(nanoseconds: 1_000_000_000_000),
        wall: UnixTime = UnixTime(seconds: 1_767_225_600),
        bootSessionID: String? = "manual-boot-1"
    ) {
        state = Locked(State(monotonic: monotonic, wall: wall, bootSessionID: bootSessionID))
    }

    /// The monotonic clock: where ``advance(by:)`` left it.
    public func monotonicNow() -> MonotonicInstant { state.withLock { $0.monotonic } }
    /// The wall clock: moved by ``advance(by:)`` and ``jumpWall(by:)``.
    public func wallNow() -> UnixTime { state.withLock { $0.wall } }
    /// The boot session, changed by ``reboot(bootSessionID:monotonic:)``.
    public var bootSessionID: String? { state.withLock { $0.bootSessionID } }

    /// How many tasks are sleeping on this time base.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// The earliest deadline a task sleeps until, or `nil` when none sleeps: advance to it to run a
    /// simulation from one wake-up to the next.
    public var nextWakeup: MonotonicInstant? { state.withLock { $0.sleepers.values.min() } }

    /// Moves both clocks forward and wakes the sleepers whose deadline has come.
    public func advance(by duration: Duration) {
        state.withLock { state in
            state.monotonic = state.monotonic.advanced(by: duration)
            state.wall = state.wall.advanced(by: duration)
            let now = state.monotonic
            state.sleepers = state.sleepers.filter { $0.value > now }
        }
        waiters.wakeAll()
    }

    /// The device sleeps for `duration`: the monotonic clock (which counts through sleep) and the wall
    /// clock both move, and sleepers wake late, all at once.
    public func suspend(for duration: Duration) { advance(by: duration) }

    /// The wall clock jumps by `offset` while the monotonic clock stays put (a user changing the time).
    public func jumpWall(by offset: Duration) {
        state.withLock { $0.wall = $0.wall.advanced(by: offset) }
    }

    /// A new boot session: a new identifier and the monotonic clock starting again near zero.
    public func reboot(bootSessionID: String, monotonic: MonotonicInstant = MonotonicInstant(nanoseconds: 5_000_000_000)) {
        state.withLock {
            $0.bootSessionID = bootSessionID
            $0.monotonic = monotonic
        }
    }

    public func sleep(until deadline: MonotonicInstant) async throws {
        try Task.checkCancellation()
        let id: UInt64? = state.withLock { state in
            guard deadline > state.monotonic else { return nil }
            state.nextID += 1
            state.sleepers[state.nextID] = deadline
            return state.nextID
        }
        guard let id else { return }
        defer { state.withLock { _ = $0.sleepers.removeValue(forKey: id) } }
        // Woken when ``advance(by:)`` has removed this sleeper.
        try await waiters.wait { state.withLock { $0.sleepers[id] == nil } ? () : nil }
    }

    /// Waits (yielding to other tasks, never sleeping) until at least `count` tasks sleep on this time
    /// base, giving up after `maxYields` yields.
    /// - Returns: Whether that many sleepers are there.
    @discardableResult
    public func waitForSleepers(_ count: Int = 1, maxYields: Int = 100_000) async -> Bool {
        for _ in 0..<maxYields {
            if sleeperCount >= count { return true }
            await Task.yield()
        }
        return sleeperCount >= count
    }
}
