import Foundation
import Testing
import TimeSync
import TimeSyncFixtures
import TimeSyncTesting

@Suite struct ServerClockTests {
    let ms = Fixture.millisecond
    let s = Fixture.second

    @Test func beforeCalibrationItIsTheDeviceClockFlaggedUnsynchronized() {
        let base = ManualTimeBase()
        let clock = ServerClock(timeBase: base)
        let reading = clock.reading()
        #expect(clock.now == base.wallNow())
        #expect(reading.serverTime == base.wallNow())
        #expect(reading.status == .unsynchronized)
        #expect(!reading.isSynchronized)
        #expect(reading.calibrationAge == nil)
        #expect(reading.earliest == UnixTime(nanoseconds: .min) && reading.latest == UnixTime(nanoseconds: .max))
        #expect(reading.position(in: base.wallNow()..<base.wallNow().advanced(by: .seconds(60))) == .uncertain)
    }

    @Test func calibratedReadingCarriesBoundsAndAge() throws {
        let base = ManualTimeBase()
        let clock = ServerClock(timeBase: base)
        let offset = Fixture.offset(serverAheadOfWall: 90, base: base)
        clock.calibrate(with: try Fixture.exchange(offset: offset, at: base.monotonicNow()))
        base.advance(by: .seconds(10))
        let reading = clock.reading()
        let truth = UnixTime(nanoseconds: base.monotonicNow().nanoseconds + offset)
        #expect(reading.isSynchronized)
        #expect(reading.earliest <= truth && truth <= reading.latest)
        #expect(reading.serverTime == truth)  // symmetric delays: exact
        #expect(reading.calibrationAge == .nanoseconds(10 * s - 20 * ms))
        // delay/2 + 9.98 s of age at 100 ppm + 100 ppm of the 20 ms exchange + 9.98 s of the
        // servers' 500 ppm slew allowance.
        #expect(reading.error == .nanoseconds(10 * ms + 998_000 + 2_000 + 4_990_000))
        #expect(reading.unixSeconds == truth.seconds)
        #expect(reading.unixMilliseconds == truth.milliseconds)
        #expect(reading.unixNanoseconds == truth.nanoseconds)
        #expect(clock.now == truth)
    }

    @Test func wallClockChangesNeitherTheReadingNorTheCountdown() throws {
        let base = ManualTimeBase()
        let clock = ServerClock(timeBase: base)
        clock.calibrate(with: try Fixture.exchange(offset: Fixture.offset(serverAheadOfWall: 5, base: base), at: base.monotonicNow()))
        let before = clock.now
        base.jumpWall(by: .seconds(-86_400))
        #expect(clock.now == before)
        base.jumpWall(by: .seconds(3600 + 86_400))
        #expect(clock.now == before)
    }

    @Test func conversionsBetweenServerAndDeviceTime() throws {
        let base = ManualTimeBase()
        let clock = ServerClock(timeBase: base)
        clock.calibrate(with: try Fixture.exchange(offset: Fixture.offset(serverAheadOfWall: 90, base: base), at: base.monotonicNow(), forward: 0, backward: 0))
        let device = base.wallNow().advanced(by: .seconds(60))
        let server = clock.serverTime(forDeviceTime: device)
        #expect(abs(device.duration(to: server).nanosecondsClamped - 90 * s) < ms)
        #expect(abs(clock.deviceTime(forServerTime: server).duration(to: device).nanosecondsClamped) < ms)
    }

    @Test func windowPositions() throws {
        let base = ManualTimeBase()
        let clock = ServerClock(timeBase: base)
        clock.calibrate(with: try Fixture.exchange(offset: 0, at: base.monotonicNow(), forward: 5 * ms, backward: 5 * ms))
        let now = clock.now
        func window(_ from: Double, _ to: Double) -> Range<UnixTime> {
            now.advanced(by: .seconds(double: from))..<now.advanced(by: .seconds(double: to))
        }
        #expect(clock.position(in: window(1, 2)) == .before)
        #expect(clock.position(in: window(-2, -1)) == .after)
        #expect(clock.position(in: window(-1, 1)) == .within)
        // The bound is about ±5 ms: a window opening 1 ms from now straddles it.
        #expect(clock.position(in: window(0.001, 1)) == .uncertain)
    }

    @Test func eventsReportCalibrationOffsetChangesTamperingAndLostSources() async throws {
        let base = ManualTimeBase()
        let clock = ServerClock(
            timeBase: base,
            configuration: .init(estimator: EstimatorConfiguration(sourceTimeout: .seconds(600))))
        var events = clock.events().makeAsyncIterator()
        clock.calibrate(with: try Fixture.exchange("a", offset: 0, at: base.monotonicNow()))
        guard case .calibrated(let reading)? = await events.next() else {
            Issue.record("expected .calibrated")
            return
        }
        #expect(reading.isSynchronized)
        #expect(await events.next() == .statusChanged(from: .unsynchronized, to: .synchronized))

        base.jumpWall(by: .seconds(3600))
        #expect(clock.checkWallClock() == .seconds(3600))
        #expect(await events.next() == .wallClockChanged(by: .seconds(3600)))
        #expect(clock.checkWallClock() == nil)  // reported once

        base.advance(by: .seconds(1))
        clock.calibrate(with: try Fixture.exchange("b", offset: 0, at: base.monotonicNow()))
        guard case .calibrated? = await events.next() else {
            Issue.record("expected .calibrated")
            return
        }
        base.advance(by: .seconds(700))
        // "b" moves on by 50 ms (a server step) while "a" has been silent for 700 s.
        clock.calibrate(with: try Fixture.exchange("b", offset: 50 * ms, at: base.monotonicNow()))
        var seen: [ServerClockEvent] = []
        for _ in 0..<3 { if let event = await events.next() { seen.append(event) } }
        #expect(seen.contains(.sourceLost("a")))
        #expect(seen.contains { if case .offsetChanged(let by) = $0 { return abs(by.nanosecondsClamped - 50 * ms) < 2 * ms } else { return false } })
    }

    @Test func noMajorityKeepsTheLastGoodCalibrationButStopsVouching() throws {
        let base = ManualTimeBase()
        let clock = ServerClock(timeBase: base)
        clock.calibrate(with: try Fixture.exchange("a", offset: 0, at: base.monotonicNow()))
        #expect(clock.isSynchronized)
        let good = clock.now
        clock.calibrate(with: try Fixture.exchange("b", offset: 10 * s, at: base.monotonicNow()))
        #expect(clock.reading().status == .noMajority)
        #expect(clock.now == good)
        #expect(clock.position(in: good.advanced(by: .seconds(-100))..<good.advanced(by: .seconds(100))) == .uncertain)
        // A third source breaks the tie.
        clock.calibrate(with: try Fixture.exchange("c", offset: 0, at: base.monotonicNow()))
        #expect(clock.isSynchronized)
        #expect(clock.calibration?.sources == ["a", "c"])
    }

    @Test func badInputIsATypedErrorAndChangesNothing() throws {
        let base = ManualTimeBase()
        let clock = ServerClock(timeBase: base)
        clock.calibrate(with: try Fixture.exchange(offset: 3 * s, at: base.monotonicNow()))
        let before = clock.reading()
        expectThrows(SampleError.replyBeforeRequest) {
            clock.calibrate(with: try OffsetSample.exchange(
                source: "bad", requestSent: base.monotonicNow(), serverReceive: UnixTime(nanoseconds: 0),
                serverTransmit: UnixTime(nanoseconds: 0), responseReceived: base.monotonicNow().advanced(by: .seconds(-1))))
        }
        expectThrows(SampleError.emptySourceName) {
            clock.calibrate(with: try Fixture.exchange("", offset: 0, at: base.monotonicNow()))
        }
        #expect(clock.reading() == before)
    }

    @Test func removingTheLastSourceKeepsTheLastCalibrationAging() throws {
        let base = ManualTimeBase()
        let clock = ServerClock(timeBase: base)
        clock.calibrate(with: try Fixture.exchange("a", offset: 3 * s, at: base.monotonicNow()))
        let calibration = clock.calibration
        clock.removeSource("a")
        #expect(clock.isSynchronized)
        #expect(clock.calibration == calibration)
        // A new source starts afresh: the removed one's samples no longer count.
        base.advance(by: .seconds(1))
        clock.calibrate(with: try Fixture.exchange("b", offset: 3 * s, at: base.monotonicNow()))
        #expect(clock.calibration?.sources == ["b"])
    }

    @Test func resetReturnsToDeviceTime() throws {
        let base = ManualTimeBase()
        let clock = ServerClock(timeBase: base)
        clock.calibrate(with: try Fixture.exchange(offset: 3 * s, at: base.monotonicNow()))
        #expect(clock.isSynchronized)
        clock.reset()
        #expect(!clock.isSynchronized)
        #expect(clock.now == base.wallNow())
        #expect(clock.calibration == nil)
    }

}

@Suite struct ServerClockSleepTests {
    let s = Fixture.second

    /// A clock calibrated exactly to `offset`, and a task sleeping until `seconds` of server time from
    /// now, registered as a sleeper; the task returns the monotonic instant it woke at.
    struct Sleeping {
        let base = ManualTimeBase()
        let clock: ServerClock
        let start: MonotonicInstant
        let deadline: UnixTime
        let task: Task<MonotonicInstant, any Error>

        init(offset: Int64, seconds: Int64) async throws {
            clock = ServerClock(timeBase: base)
            clock.calibrate(with: try Fixture.exchange("a", offset: offset, at: base.monotonicNow(), forward: 0, backward: 0))
            start = base.monotonicNow()
            let deadline = clock.now.advanced(by: .seconds(seconds))
            self.deadline = deadline
            let clock = self.clock
            task = Task {
                try await clock.sleep(until: deadline)
                return clock.timeBase.monotonicNow()
            }
            #expect(await base.waitForSleepers(1))
        }

        /// The server turns out to be at `offset` after all (it was stepped): the first sample that
        /// contradicts the old one is held as a suspect, the second confirms the step and replaces it.
        /// (No `reset()`: that would leave the clock on device time for a moment, and the sleeper would
        /// rightly act on it.)
        func recalibrate(offset: Int64) async throws {
            let before = clock.calibration
            let sample = try Fixture.exchange("a", offset: offset, at: base.monotonicNow(), forward: 0, backward: 0)
            clock.calibrate(with: sample)
            #expect(clock.calibration == before)
            clock.calibrate(with: sample)
            #expect(clock.calibration?.offset.contains(offset) == true)
            #expect(await base.waitForSleepers(1))
        }

        /// Waits for the task and checks it woke `seconds` after the start, at or past the deadline.
        func expectWake(after seconds: Int64) async throws {
            let woke = try await task.value
            #expect(woke == start.advanced(by: .seconds(seconds)))
            #expect(clock.reading(at: woke).serverTime >= deadline)
        }
    }

    @Test func sleepWakesAtTheServerTimeDeadline() async throws {
        let sleeping = try await Sleeping(offset: 100 * s, seconds: 5)
        sleeping.base.advance(by: .seconds(4))
        #expect(sleeping.base.sleeperCount == 1)
        sleeping.base.advance(by: .seconds(1))
        try await sleeping.expectWake(after: 5)
    }

    @Test func aRecalibrationThatBringsTheDeadlineCloserWakesTheSleeperEarlier() async throws {
        let sleeping = try await Sleeping(offset: 0, seconds: 10)
        sleeping.base.advance(by: .seconds(1))
        // The server turns out to be 3 s further ahead: the deadline is 3 s closer.
        try await sleeping.recalibrate(offset: 3 * s)
        sleeping.base.advance(by: .seconds(6))
        try await sleeping.expectWake(after: 7)
    }

    @Test func aRecalibrationThatPushesTheDeadlineAwayKeepsItAsleep() async throws {
        let sleeping = try await Sleeping(offset: 0, seconds: 10)
        try await sleeping.recalibrate(offset: -2 * s)
        sleeping.base.advance(by: .seconds(10))  // the old deadline: too early now
        #expect(await sleeping.base.waitForSleepers(1))
        sleeping.base.advance(by: .seconds(2))
        try await sleeping.expectWake(after: 12)
    }

    @Test func cancellingASleepThrows() async throws {
        let sleeping = try await Sleeping(offset: 0, seconds: 60)
        sleeping.task.cancel()
        await #expect(throws: CancellationError.self) { try await sleeping.task.value }
    }

    @Test func worksAsASwiftClock() async throws {
        // Generic code that takes any Clock runs on server time.
        func wait<C: Clock>(on clock: C, for duration: C.Duration) async throws -> C.Instant {
            try await clock.sleep(until: clock.now.advanced(by: duration), tolerance: nil)
            return clock.now
        }
        let base = ManualTimeBase()
        let clock = ServerClock(timeBase: base)
        clock.calibrate(with: try Fixture.exchange(offset: 0, at: base.monotonicNow(), forward: 0, backward: 0))
        let start = clock.now
        let task = Task { try await wait(on: clock, for: .seconds(3)) }
        #expect(await base.waitForSleepers(1))
        base.advance(by: .seconds(3))
        #expect(try await task.value == start.advanced(by: .seconds(3)))
        #expect(clock.minimumResolution == .nanoseconds(1))
    }
}

@Suite struct ServerClockLifetimeTests {
    @Test func eventStreamsEndWhenTheClockGoes() async throws {
        var clock: ServerClock? = ServerClock(timeBase: ManualTimeBase())
        let events = clock!.events()
        clock = nil
        var count = 0
        for await _ in events { count += 1 }
        #expect(count == 0)
    }
}
