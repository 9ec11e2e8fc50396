import Testing
import TimeSync
import TimeSyncFixtures
import TimeSyncTesting

@Suite struct CountdownTests {
    /// Runs a countdown in a task, performing `step` each time the countdown is asleep, until it ends.
    func drive(_ countdown: Countdown, base: ManualTimeBase, steps: [(ManualTimeBase) -> Void]) async throws -> [CountdownTick] {
        let task = Task {
            var ticks: [CountdownTick] = []
            for try await tick in countdown { ticks.append(tick) }
            return ticks
        }
        for step in steps {
            #expect(await base.waitForSleepers(1))
            step(base)
        }
        return try await task.value
    }

    @Test func ticksOncePerSecondAndFinishesOnceAtZero() async throws {
        let base = ManualTimeBase()
        let deadline = try DeadlineInterval.remaining(.seconds(3), requestSent: base.monotonicNow(), responseReceived: base.monotonicNow())
        let countdown = Countdown(to: deadline, timeBase: base)
        let ticks = try await drive(countdown, base: base, steps: Array(repeating: { $0.advance(by: .seconds(1)) }, count: 3))
        #expect(ticks.map(\.shown) == [3, 2, 1, 0])
        #expect(ticks.map(\.isFinished) == [false, false, false, true])
        #expect(ticks.map(\.remaining) == [.seconds(3), .seconds(2), .seconds(1), .zero])
    }

    @Test func wallClockJumpsChangeNothingAndSuspensionResumesAtTheRightValue() async throws {
        let base = ManualTimeBase()
        let deadline = try DeadlineInterval.remaining(.seconds(10), requestSent: base.monotonicNow(), responseReceived: base.monotonicNow())
        let countdown = Countdown(to: deadline, timeBase: base)
        let ticks = try await drive(countdown, base: base, steps: [
            { $0.advance(by: .seconds(1)) },  // 9
            { $0.jumpWall(by: .seconds(3600)); $0.advance(by: .seconds(1)) },  // 8: the +1 h jump is ignored
            { $0.jumpWall(by: .seconds(-86_400)); $0.advance(by: .seconds(1)) },  // 7
            { $0.suspend(for: .milliseconds(4_500)) },  // asleep 4.5 s: 2.5 s left shows 3, once
            { $0.advance(by: .milliseconds(500)) },  // 2
            { $0.advance(by: .seconds(1)) },  // 1
            { $0.advance(by: .seconds(5)) },  // long past: 0, once
        ])
        #expect(ticks.map(\.shown) == [10, 9, 8, 7, 3, 2, 1, 0])
        #expect(ticks[4].remaining == .milliseconds(2_500))
        #expect(ticks.filter(\.isFinished).count == 1)
    }

    @Test func aDeadlineAlreadyPastFinishesAtOnce() async throws {
        let base = ManualTimeBase()
        let clock = ServerClock(timeBase: base)
        clock.calibrate(with: try Fixture.exchange(offset: 0, at: base.monotonicNow()))
        var ticks: [CountdownTick] = []
        for try await tick in clock.countdown(to: clock.now.advanced(by: .seconds(-5))) { ticks.append(tick) }
        #expect(ticks.map(\.shown) == [0])
    }

    @Test func serverTimeCountdownFollowsRecalibration() async throws {
        let base = ManualTimeBase()
        let clock = ServerClock(timeBase: base)
        clock.calibrate(with: try Fixture.exchange("a", offset: 0, at: base.monotonicNow(), forward: 0, backward: 0))
        let countdown = clock.countdown(to: clock.now.advanced(by: .seconds(5)))
        let ticks = try await drive(countdown, base: base, steps: [
            { $0.advance(by: .seconds(1)) },  // 4
            { base in
                // The server turns out to be 2 s ahead of what we thought: 2 s less to wait.
                clock.reset()
                clock.calibrate(with: try! Fixture.exchange("a", offset: 2 * Fixture.second, at: base.monotonicNow(), forward: 0, backward: 0))
                base.advance(by: .seconds(1))  // 3 − 2 = 1
            },
            { $0.advance(by: .seconds(1)) },  // 0
        ])
        #expect(ticks.map(\.shown) == [5, 4, 1, 0])
    }

    @Test func certainEdgeWaitsForTheWholeErrorBound() async throws {
        let base = ManualTimeBase()
        let clock = ServerClock(timeBase: base)
        // ±100 ms bound.
        clock.calibrate(with: try Fixture.exchange(offset: 0, at: base.monotonicNow(), forward: 100 * Fixture.millisecond, backward: 100 * Fixture.millisecond))
        let deadline = clock.now.advanced(by: .seconds(2))
        var iterator = clock.countdown(to: deadline, untilCertain: true).makeAsyncIterator()
        let first = try await iterator.next()
        #expect(first?.remaining ?? .zero > .seconds(2))  // two seconds plus the bound
        base.advance(by: .seconds(2))
        let second = try await iterator.next()
        #expect(second?.shown == 1)  // the estimate has reached the deadline, the bound has not
        #expect(clock.reading().position(in: deadline..<deadline.advanced(by: .seconds(60))) == .uncertain)
    }

    @Test func partsAndFormatting() async throws {
        let base = ManualTimeBase()
        let seconds: Int64 = 2 * 86_400 + 3 * 3600 + 4 * 60 + 5
        let deadline = try DeadlineInterval.remaining(.seconds(seconds), requestSent: base.monotonicNow(), responseReceived: base.monotonicNow())
        var iterator = Countdown(to: deadline, timeBase: base).makeAsyncIterator()
        let tick = try #require(try await iterator.next())
        #expect((tick.days, tick.hours, tick.minutes, tick.seconds) == (2, 3, 4, 5))
        #expect(tick.formatted == "2d 03:04:05")
        #expect(tick.totalSeconds == seconds)
    }

    @Test func remainingTimeWithUncertainty() async throws {
        // A server's "starts in 60 s" (truncated to whole seconds) received 200 ms after asking.
        let base = ManualTimeBase()
        let sent = base.monotonicNow()
        base.advance(by: .milliseconds(200))
        let deadline = try DeadlineInterval.remaining(.seconds(60), resolution: .seconds(1), requestSent: sent, responseReceived: base.monotonicNow())
        var estimate = Countdown(to: deadline, timeBase: base).makeAsyncIterator()
        var certain = Countdown(to: deadline, timeBase: base, untilCertain: true).makeAsyncIterator()
        #expect(try await estimate.next()?.remaining == .milliseconds(60_400))
        #expect(try await certain.next()?.remaining == .seconds(61))
    }
}
