#if canImport(Darwin)
import os
#else
import Synchronization
#endif

/// The one lock type of TimeSync: a value guarded by a mutex.
///
/// `Synchronization.Mutex` needs iOS 18 / macOS 15, so Apple platforms use `OSAllocatedUnfairLock`
/// (iOS 16 / macOS 13) and everything else uses `Mutex`.
final class Locked<State: Sendable>: Sendable {
    #if canImport(Darwin)
    private let lock: OSAllocatedUnfairLock<State>
    #else
    private let mutex: Mutex<State>
    #endif

    init(_ initial: State) {
        #if canImport(Darwin)
        lock = OSAllocatedUnfairLock(initialState: initial)
        #else
        mutex = Mutex(initial)
        #endif
    }

    /// Runs `body` with exclusive access to the state.
    func withLock<R>(_ body: (inout State) throws -> R) rethrows -> R {
        #if canImport(Darwin)
        return try lock.withLockUnchecked { try body(&$0) }
        #else
        return try mutex.withLock { try body(&$0) }
        #endif
    }
}
