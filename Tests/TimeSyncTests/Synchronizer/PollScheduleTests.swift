import Testing
import TimeSync
import TimeSyncTesting

@Suite struct PollScheduleTests {
    @Test func burstThenBackoffToTheMaximum() {
        var schedule = PollSchedule(policy: PollPolicy())
        #expect(schedule.next(after: .sample) == .seconds(2))
        #expect(schedule.next(after: .failure) == .seconds(2))
        #expect(schedule.next(after: .sample) == .seconds(2))
        #expect(schedule.next(after: .sample) == .seconds(64))  // the fourth ends the burst
        var intervals: [Duration] = []
        for _ in 0..<6 { intervals.append(schedule.next(after: .sample)!) }
        #expect(intervals == [.seconds(128), .seconds(256), .seconds(512), .seconds(1024), .seconds(1024), .seconds(1024)])
    }

    /// Bounds that widen by 0.5 ms a second (a server that may slew at 500 ppm) with a 50 ms
    /// target: the interval stops where the error at its end would pass the target, instead of
    /// backing off to the maximum.
    @Test func theIntervalEndsBeforeTheErrorPassesTheTarget() {
        var schedule = PollSchedule(policy: PollPolicy(targetError: .milliseconds(50)))
        let growth: (Duration) -> Duration = { .milliseconds(1) + $0 / 2000 }
        var waits: [Duration] = []
        for _ in 0..<12 { waits.append(schedule.next(after: .sample, error: .milliseconds(1), errorAfter: growth)!) }
        let steady = waits.dropFirst(4)
        #expect(steady.allSatisfy { growth($0) <= .milliseconds(50) }, "\(waits)")
        #expect(steady.allSatisfy { $0 == .seconds(64) }, "\(waits)")
        // The same errors without their growth: the interval backs off to the maximum.
        var blind = PollSchedule(policy: PollPolicy(targetError: .milliseconds(50)))
        var last: Duration = .zero
        for _ in 0..<12 { last = blind.next(after: .sample, error: .milliseconds(1))! }
        #expect(last == .seconds(1024))
    }

    @Test func neverFasterThan16SecondsAfterTheBurst() {
        let policy = PollPolicy(burstCount: 2, burstInterval: .milliseconds(10), minimumInterval: .seconds(1), maximumInterval: .seconds(2))
        #expect(policy.minimumInterval == .seconds(16))
        #expect(policy.maximumInterval == .seconds(16))
        var schedule = PollSchedule(policy: policy)
        #expect(schedule.next(after: .sample) == .milliseconds(10))
        var generator = SeededGenerator(seed: 5)
        for _ in 0..<100 {
            let outcome: PollOutcome = [.sample, .failure, .unsynchronized].randomElement(using: &generator)!
            #expect(schedule.next(after: outcome)! >= .seconds(16))
        }
    }

    @Test func failuresBackOff() {
        var schedule = PollSchedule(policy: PollPolicy(burstCount: 1))
        #expect(schedule.next(after: .failure) == .seconds(64))
        #expect(schedule.next(after: .failure) == .seconds(128))
        #expect(schedule.next(after: .failure) == .seconds(256))
    }

    @Test func rateKissEndsTheBurstAndRaisesTheFloor() {
        var schedule = PollSchedule(policy: PollPolicy())
        #expect(schedule.next(after: .sample) == .seconds(2))
        #expect(schedule.next(after: .slowDown(interval: nil)) == .seconds(128))
        #expect(schedule.floor == .seconds(128))
        #expect(schedule.next(after: .sample) == .seconds(256))
        #expect(schedule.next(after: .slowDown(interval: nil)) == .seconds(512))
        #expect(schedule.next(after: .slowDown(interval: nil)) == .seconds(1024))
        #expect(schedule.next(after: .slowDown(interval: nil)) == .seconds(1024))
    }

    /// A `RATE` kiss's own interval (2^poll s) raises the floor past the doubling, up to the policy's
    /// longest interval; a shorter one leaves the doubling as it is.
    @Test func rateKissRaisesTheFloorToTheServersInterval() {
        var schedule = PollSchedule(policy: PollPolicy())
        #expect(schedule.next(after: .slowDown(interval: .seconds(512))) == .seconds(512))
        #expect(schedule.floor == .seconds(512))
        #expect(schedule.reason == .slowDown)
        #expect(schedule.next(after: .sample) == .seconds(1024))

        var short = PollSchedule(policy: PollPolicy())
        #expect(short.next(after: .slowDown(interval: .seconds(8))) == .seconds(128))

        var long = PollSchedule(policy: PollPolicy())
        #expect(long.next(after: .slowDown(interval: .seconds(1 << 17))) == .seconds(1024), "capped at the policy's maximum")
        #expect(long.floor == .seconds(1024))
    }

    @Test func denyAndRestrictStopPolling() {
        var schedule = PollSchedule()
        #expect(schedule.next(after: .stop) == nil)
    }
}
