extension ServerClock {
    /// Suspends until the server's time reaches `deadline`.
    ///
    /// Sleeps on the monotonic clock; a recalibration during the sleep wakes it to recompute the
    /// deadline, so it wakes at the right server time even when the estimate moves meanwhile.
    /// - Parameters:
    ///   - deadline: The server time to wake at.
    ///   - tolerance: How much later the system may wake, to group wake-ups (none by default).
    /// - Throws: `CancellationError` when the task is cancelled.
    public func sleep(until deadline: UnixTime, tolerance: Duration? = nil) async throws {
        while true {
            try Task.checkCancellation()
            let monotonic = timeBase.monotonicNow()
            let generation = state.withLock { $0.generation }
            if reading(at: monotonic).serverTime >= deadline { return }
            // Never sleep for nothing: the clamped estimate can lag the linear solution by a hair.
            let wake = max(
                monotonicInstant(forServerTime: deadline, now: monotonic, wall: self.timeBase.wallNow()),
                monotonic.advanced(by: .nanoseconds(1)))
            await sleepers.wait(
                until: { self.state.withLock { $0.generation } != generation }, orUntil: wake, on: timeBase, tolerance: tolerance ?? .zero)
        }
    }
}
