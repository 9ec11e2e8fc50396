/// Calls a closure once a timeout has passed on a time base's monotonic clock — on the system's, one
/// that counts time asleep (a device that sleeps through a deadline finds it passed on waking) and
/// ignores wall-clock changes. Dispatch's `DispatchTime` deadlines, by contrast, stop while the device
/// sleeps.
package struct DeadlineTimer: Sendable {
    private let task: Task<Void, Never>

    /// Starts the timer.
    /// - Parameters:
    ///   - timeout: How long from now.
    ///   - timeBase: The clocks (`SystemTimeBase` outside tests).
    ///   - expire: Called once when the timeout has passed, unless ``cancel()`` came first.
    package init(after timeout: Duration, on timeBase: any TimeBase, expire: @escaping @Sendable () -> Void) {
        let deadline = timeBase.monotonicNow().advanced(by: timeout)
        task = Task.detached(priority: .userInitiated) {
            do {
                try await timeBase.sleep(until: deadline)
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
