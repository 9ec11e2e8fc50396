/// Tasks parked until a state they read changes: the one continuation-based wait of the package.
///
/// A waiter says what it waits for as a check on state it guards itself (under its own lock);
/// whoever changes that state calls ``wakeAll()``, and every parked waiter checks again. A generation
/// count taken before each check closes the race between checking and parking: a wake-up in between
/// is never lost. Cancellation ends a wait at once.
package final class Waiters: Sendable {
    private struct State {
        var generation: UInt64 = 0
        var nextID: UInt64 = 0
        var parked: [UInt64: CheckedContinuation<Void, Never>] = [:]
        /// Waiters cancelled before they parked: they must not park.
        var cancelled: Set<UInt64> = []
    }

    private let state = Locked(State())

    package init() {}

    /// Waits until `ready` returns a value, and returns it.
    /// - Parameter ready: Reads the state waited on; `nil` while not ready. Called once at first, then
    ///   after each ``wakeAll()``.
    /// - Throws: `CancellationError` when the task is cancelled before `ready` gives a value.
    package func wait<Value>(until ready: () -> Value?) async throws -> Value {
        while true {
            let generation = state.withLock { $0.generation }
            if let value = ready() { return value }
            try Task.checkCancellation()
            await park(unlessPast: generation)
        }
    }

    /// Waits until `ready` is true, or the task is cancelled.
    /// - Returns: Whether `ready` became true (false: cancelled).
    @discardableResult
    package func wait(until ready: () -> Bool) async -> Bool {
        (try? await wait(until: { ready() ? () : nil })) != nil
    }

    /// Wakes every parked waiter to check again.
    package func wakeAll() {
        let parked = state.withLock { state in
            state.generation &+= 1
            defer { state.parked.removeAll() }
            return Array(state.parked.values)
        }
        for continuation in parked { continuation.resume() }
    }

    /// Parks the task until the next ``wakeAll()`` or its cancellation; returns at once when a wake-up
    /// came after `generation` was read.
    private func park(unlessPast generation: UInt64) async {
        let id = state.withLock { state in
            state.nextID &+= 1
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state in
                    if state.generation != generation || state.cancelled.remove(id) != nil { return true }
                    state.parked[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let continuation = state.withLock { state -> CheckedContinuation<Void, Never>? in
                guard let continuation = state.parked.removeValue(forKey: id) else {
                    state.cancelled.insert(id)
                    return nil
                }
                return continuation
            }
            continuation?.resume()
        }
        state.withLock { _ = $0.cancelled.remove(id) }
    }
}

extension Waiters {
    /// Waits until `ready` is true or `deadline` passes on `timeBase`'s monotonic clock (never, when
    /// `nil`), whichever comes first, or the task is cancelled: the package's one "sleep until, unless
    /// woken".
    /// - Returns: Whether `ready` is true when the wait ends.
    @discardableResult
    package func wait(
        until ready: @escaping @Sendable () -> Bool, orUntil deadline: MonotonicInstant?, on timeBase: any TimeBase,
        tolerance: Duration = .zero
    ) async -> Bool {
        if ready() { return true }
        guard let deadline else { return await wait(until: ready) }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.wait(until: ready) }
            group.addTask { try? await timeBase.sleep(until: deadline, tolerance: tolerance) }
            await group.next()
            group.cancelAll()
        }
        return ready()
    }
}
