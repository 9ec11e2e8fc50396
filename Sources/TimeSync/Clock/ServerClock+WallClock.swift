extension ServerClock {
    /// Compares the wall clock with the monotonic clock; when the wall clock moved by more than the
    /// threshold since the last check, emits `ServerClockEvent.wallClockChanged(by:)`.
    ///
    /// Call it when the platform says the clock changed (`NSSystemClockDidChange`), or let
    /// ``monitorWallClock(every:)`` poll. The clock's readings never depend on the wall clock.
    /// - Returns: How far the wall clock moved, when it moved more than the threshold.
    @discardableResult
    public func checkWallClock() -> Duration? {
        let pair = timeBase.wallClockPair()
        return state.withLock { checkWallClock(pair, in: &$0) }
    }

    /// Checks the wall clock read in `pair`, under the clock's lock: emits
    /// `ServerClockEvent.wallClockChanged(by:)` when it moved more than the threshold.
    @discardableResult
    func checkWallClock(_ pair: WallClockPair, in state: inout State) -> Duration? {
        guard let change = state.wallClock.check(pair) else { return nil }
        subscribers.emit(.wallClockChanged(by: change))
        return change
    }

    /// Checks the wall clock every `interval` until the task is cancelled.
    public func monitorWallClock(every interval: Duration = .seconds(1)) async {
        while !Task.isCancelled {
            checkWallClock()
            do {
                try await timeBase.sleep(until: timeBase.monotonicNow().advanced(by: interval), tolerance: SleepTolerance.forWait(interval))
            } catch {
                return
            }
        }
    }
}
