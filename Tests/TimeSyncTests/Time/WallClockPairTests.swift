import Foundation
import Testing
import TimeSync
import TimeSyncTesting

/// Converting server − monotonic bounds to server − wall clock stays honest when the thread is
/// preempted between reading the two clocks.
@Suite struct WallClockPairTests {
    /// A time base whose every wall-clock read comes after a pause (the thread was preempted between
    /// reading the monotonic clock and the wall clock): the monotonic clock moves on by `pause` first.
    final class PreemptedTimeBase: TimeBase, @unchecked Sendable {
        let lock = NSLock()
        var monotonic: Int64 = 1_000 * 1_000_000_000
        let wallMinusMonotonic: Int64 = 1_767_225_600 * 1_000_000_000 - 1_000 * 1_000_000_000
        let pause: Int64
        init(pause: Int64) { self.pause = pause }
        func monotonicNow() -> MonotonicInstant { lock.withLock { MonotonicInstant(nanoseconds: monotonic) } }
        func wallNow() -> UnixTime {
            lock.withLock {
                monotonic += pause
                return UnixTime(nanoseconds: monotonic + wallMinusMonotonic)
            }
        }
        func sleep(until deadline: MonotonicInstant) async throws {}
        var bootSessionID: String? { "preempted" }
    }

    @Test func aPauseBetweenTheReadsWidensTheBoundsInsteadOfShiftingThem() throws {
        let base = PreemptedTimeBase(pause: 800_000)  // 0.8 ms, every time
        let pair = base.wallClockPair()
        #expect(pair.uncertainty == 400_000)
        // The server is exactly 2.345 s ahead of the wall clock: θ = wall − monotonic + 2.345 s.
        let truth: Int64 = 2_345_000_000
        let theta = base.wallMinusMonotonic + truth
        let (estimate, bounds) = pair.wallOffset(estimate: theta, bounds: OffsetInterval(exactly: theta))
        #expect(bounds.contains(truth), "\(bounds)")
        #expect(bounds.width == 800_000)
        #expect(bounds.contains(estimate))
        // Pairing the wall clock with the monotonic reading taken before it, as a naive
        // `(monotonicNow(), wallNow())` does, is off by the pause and misses the truth.
        let naive = WallClockPair(monotonic: base.monotonicNow(), wall: base.wallNow(), uncertainty: 0)
        #expect(!naive.wallOffset(estimate: theta, bounds: OffsetInterval(exactly: theta)).bounds.contains(truth))
    }

    @Test func anUninterruptedReadIsExact() {
        let base = ManualTimeBase()
        let pair = base.wallClockPair()
        #expect(pair.uncertainty == 0)
        #expect(pair.monotonic == base.monotonicNow() && pair.wall == base.wallNow())
    }
}
