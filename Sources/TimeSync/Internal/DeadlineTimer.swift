/// Calls a closure once a ``Deadline`` has passed on a time base's monotonic clock — on the system's, one
/// that counts time asleep (a device that sleeps through a deadline finds it passed on waking) and
/// ignores wall-clock changes. Dispatch's `DispatchTime` deadlines, by contrast, stop while the device
/// sleeps.
package struct DeadlineTimer: Sendable {
    private let task: Task<Void, Never>

    /// Starts the timer.
    /// - Parameters:
    ///   - deadline: When to expire.
    ///   - timeBase: The clocks the deadline is on (`SystemTimeBase` outside tests).
    ///   - expire: Called once when the deadline has passed, unless ``cancel()`` came first.
    package init(at deadline: Deadline, on timeBase: any TimeBase, expire: @escaping @Sendable () -> Void) {
        task = Task.detached(priority: .userInitiated) {
            do {
                try await timeBase.sleep(until: deadline.instant)
            } catch {
                return
            }
            if !Task.isCancelled { expire() }
        }
    }

    /// Stops the timer; `expire` is not called after this returns unless it had already started.
    package func cancel() {
        task.cancel()
    }
}
