// The cost of reading the clock: ServerClock.now against the raw monotonic read it is built on,
// ContinuousClock.now and Date(), in one run; allocations counted; one and two threads.
import Benchmark
import Foundation
import TimeSync
import TimeSyncTesting

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A synchronized clock on the system time base, as an app would have it.
let calibratedClock: ServerClock = {
    let clock = ServerClock()
    let server = clock.timeBase.wallNow().advanced(by: .seconds(90))
    // Two samples 20 ms apart so the estimator measures a rate, as in real use.
    try! clock.calibrate(to: server, source: "bench", uncertainty: .milliseconds(10))
    usleep(20_000)
    try! clock.calibrate(to: server.advanced(by: .milliseconds(20)), source: "bench", uncertainty: .milliseconds(10))
    precondition(clock.isSynchronized)
    return clock
}()

@inline(never)
func rawBootTime() -> Int64 {
    var ts = timespec()
    #if canImport(Darwin)
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts)
    #else
    clock_gettime(CLOCK_BOOTTIME, &ts)
    #endif
    return Int64(ts.tv_sec) &* 1_000_000_000 &+ Int64(ts.tv_nsec)
}

/// The alternative to `ServerClock`'s lock-free read: an offset and a rate, the arithmetic of `now`,
/// read under a mutex (a `pthread_mutex_t`, as the core's one lock type is on Linux). Measured beside
/// `now` to show what the lock-free path is worth, on one thread and on two.
final class MutexModelCell: @unchecked Sendable {
    // `@unchecked Sendable` is safe: `model` is only read inside the mutex.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t> = {
        let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        return mutex
    }()
    private let model: (offset: Int64, rate: Double, reference: Int64)

    /// The model of `reading`: server time − monotonic time then, drifting at `rate`.
    init(_ reading: ClockReading, rate: Double) {
        model = (reading.serverTime.nanoseconds &- reading.monotonicTime.nanoseconds, rate, reading.monotonicTime.nanoseconds)
    }

    @inline(never)
    func now() -> UnixTime {
        let monotonic = rawBootTime()
        pthread_mutex_lock(mutex)
        let model = self.model
        pthread_mutex_unlock(mutex)
        let drift = Int64(model.rate * Double(monotonic &- model.reference))
        return UnixTime(nanoseconds: monotonic &+ model.offset &+ drift)
    }
}

/// Reads `reads` times on each of `threads` threads at once; returns when all are done.
func readConcurrently(threads: Int, reads: Int, _ read: @escaping @Sendable () -> Void) {
    let group = DispatchGroup()
    for _ in 0..<threads {
        group.enter()
        Thread {
            for _ in 0..<reads { read() }
            group.leave()
        }.start()
    }
    group.wait()
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal, .instructions],
        warmupIterations: 10,
        scalingFactor: .mega,
        maxDuration: .seconds(3),
        maxIterations: 20)

    let clock = calibratedClock
    let mutexCell = MutexModelCell(clock.reading(), rate: 1e-6)

    Benchmark("raw clock_gettime(CLOCK_BOOTTIME)") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(rawBootTime()) }
    }
    Benchmark("ContinuousClock.now") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(ContinuousClock.now) }
    }
    Benchmark("Date()") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(Date()) }
    }
    Benchmark("ServerClock.now") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(clock.now) }
    }
    Benchmark("ServerClock.reading()") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(clock.reading()) }
    }

    // Threads: the same total work (one million reads per thread) on one and on two threads; two
    // threads should take about as long as one if readers never contend.
    let threaded = Benchmark.Configuration(
        metrics: [.wallClock, .throughput], warmupIterations: 2, scalingFactor: .one, maxDuration: .seconds(5), maxIterations: 10)
    Benchmark("ServerClock.now, 1 thread x 1M reads", configuration: threaded) { benchmark in
        for _ in benchmark.scaledIterations {
            readConcurrently(threads: 1, reads: 1_000_000) { blackHole(clock.now) }
        }
    }
    Benchmark("ServerClock.now, 2 threads x 1M reads", configuration: threaded) { benchmark in
        for _ in benchmark.scaledIterations {
            readConcurrently(threads: 2, reads: 1_000_000) { blackHole(clock.now) }
        }
    }
    Benchmark("now under a mutex, 1 thread x 1M reads", configuration: threaded) { benchmark in
        for _ in benchmark.scaledIterations {
            readConcurrently(threads: 1, reads: 1_000_000) { blackHole(mutexCell.now()) }
        }
    }
    Benchmark("now under a mutex, 2 threads x 1M reads", configuration: threaded) { benchmark in
        for _ in benchmark.scaledIterations {
            readConcurrently(threads: 2, reads: 1_000_000) { blackHole(mutexCell.now()) }
        }
    }
    Benchmark("raw clock_gettime, 1 thread x 1M reads", configuration: threaded) { benchmark in
        for _ in benchmark.scaledIterations {
            readConcurrently(threads: 1, reads: 1_000_000) { blackHole(rawBootTime()) }
        }
    }
    Benchmark("raw clock_gettime, 2 threads x 1M reads", configuration: threaded) { benchmark in
        for _ in benchmark.scaledIterations {
            readConcurrently(threads: 2, reads: 1_000_000) { blackHole(rawBootTime()) }
        }
    }
}
