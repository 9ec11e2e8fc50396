#if canImport(Darwin)
import os
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Android)
import Android
#else
import Synchronization
#endif

/// The one lock type of TimeSync: a value guarded by a mutex.
///
/// Apple platforms use `OSAllocatedUnfairLock` (iOS 16 / macOS 13; `Synchronization.Mutex` needs
/// iOS 18 / macOS 15). Linux uses a `pthread_mutex_t`: ThreadSanitizer understands it, while it cannot
/// see `Synchronization.Mutex`'s futex there and would report every access under it as a race. Other
/// platforms use `Mutex`.
package final class Locked<State: Sendable>: @unchecked Sendable {
    #if canImport(Darwin)
    private let lock: OSAllocatedUnfairLock<State>
    #elseif canImport(Glibc) || canImport(Musl) || canImport(Android)
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    // Accessed only between `pthread_mutex_lock` and `pthread_mutex_unlock` of `mutex`.
    private var state: State
    #else
    private let mutex: Mutex<State>
    #endif

    package init(_ initial: State) {
        #if canImport(Darwin)
        lock = OSAllocatedUnfairLock(initialState: initial)
        #elseif canImport(Glibc) || canImport(Musl) || canImport(Android)
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let status = pthread_mutex_init(mutex, nil)
        precondition(status == 0, "pthread_mutex_init failed: \(status)")
        state = initial
        #else
        mutex = Mutex(initial)
        #endif
    }

    #if canImport(Glibc) || canImport(Musl) || canImport(Android)
    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }
    #endif

    /// Runs `body` with exclusive access to the state.
    package func withLock<R>(_ body: (inout State) throws -> R) rethrows -> R {
        #if canImport(Darwin)
        return try lock.withLockUnchecked { try body(&$0) }
        #elseif canImport(Glibc) || canImport(Musl) || canImport(Android)
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&state)
        #else
        return try mutex.withLock { try body(&$0) }
        #endif
    }
}
