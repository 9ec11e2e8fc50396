import Testing
import TimeSync
import TimeSyncFixtures
import TimeSyncTesting

/// A server simulated on a hand-moved clock (TimeSyncTesting's scripted source).
typealias SimulatedTimeSource = ScriptedTimeSource

/// The synchronizer on simulated servers and a hand-moved clock: hours of polling, no sleeps.
@Suite struct TimeSynchronizerTests {
    let s = Fixture.second

    /// Runs the simulation until `end` (monotonic, from the base's start), from wake-up to wake-up:
    /// each time the synchronizer has settled (no poll in flight, its loop asleep), the clock moves to
    /// the next deadline.
    static func run(_ base: ManualTimeBase, _ sync: TimeSynchronizer, for duration: Duration) async {
        let end = base.monotonicNow().advanced(by: duration)
        while base.monotonicNow() < end {
            await settle(base, sync)
            guard let next = base.nextWakeup, next <= end else {
                base.advance(by: base.monotonicNow().duration(to: end))
                break
            }
            base.advance(by: base.monotonicNow().duration(to: max(next, base.monotonicNow())))
        }
    }

    /// Yields (never sleeps) until the synchronizer has settled and its loop sleeps on the time base.
    static func settle(_ base: ManualTimeBase, _ sync: TimeSynchronizer) async {
        for _ in 0..<100_000 {
            if sync.isSettled, base.sleeperCount >= 1 { return }
            await Task.yield()
        }
    }

    @Test func mixingReferencesIsAConfigurationError() {
        let base = ManualTimeBase()
        expectThrows(TimeSynchronizerError.mixedReferences([.utc, .service("api")])) {
            try TimeSynchronizer(
                sources: [SimulatedTimeSource("ntp", offset: 0, base: base), SimulatedTimeSource("api", offset: 0, base: base, reference: .service("api"))],
                timeBase: base)
        }
        expectThrows(TimeSynchronizerError.noSources) { try TimeSynchronizer(sources: [TimeSource](), timeBase: base) }
        expectThrows(TimeSynchronizerError.duplicateSource("a")) {
            try TimeSynchronizer(sources: [SimulatedTimeSource("a", offset: 0, base: base), SimulatedTimeSource("a", offset: 0, base: base)], timeBase: base)
        }
    }

    @Test func aLyingServerAmongFourIsAFalsetickerAndNeverMakesTheClockSynchronized() async throws {
        let base = ManualTimeBase()
        let truth = 7 * s
        let sources = [
            SimulatedTimeSource("liar", offset: truth + 40 * s, base: base),
            SimulatedTimeSource("a", offset: truth, base: base),
            SimulatedTimeSource("b", offset: truth, base: base),
            SimulatedTimeSource("c", offset: truth, base: base),
        ]
        let sync = try TimeSynchronizer(sources: sources, timeBase: base)
        let events = sync.clock.events()
        let watcher = Task {
            var synchronizedWhileLiarSelected = false
            for await event in events {
                if case .calibrated(let reading) = event, reading.status == .synchronized,
                    sync.clock.calibration?.sources.contains("liar") == true
                {
                    synchronizedWhileLiarSelected = true
                }
                if case .statusChanged(_, .synchronized) = event { break }
            }
            return synchronizedWhileLiarSelected
        }
        sync.start()
        #expect(await sync.waitUntilSynchronized(timeout: .seconds(60)))
        #expect(await watcher.value == false)
        let reading = sync.clock.reading()
        #expect(reading.earliest.nanoseconds <= reading.monotonicTime.nanoseconds + truth)
        #expect(reading.monotonicTime.nanoseconds + truth <= reading.latest.nanoseconds)
        let states = Dictionary(uniqueKeysWithValues: sync.diagnostics().sources.map { ($0.source, $0.state) })
        #expect(states == ["liar": .falseticker, "a": .selected, "b": .selected, "c": .selected])
        await sync.stop()
    }

    /// A single source is trusted alone: it is polled at most every targetError / serverSlew (500 s
    /// by default) instead of 1024 s, so a server slewing at twice the allowance, or stepping, is
    /// caught before it leaves the bounds by more than the target error; three sources back off to
    /// 1024 s, where the others outvote a broken one at once.
    @Test func aSourceTrustedAloneIsPolledOftenEnoughToCatchABreak() async throws {
        #expect(PollPolicy().trustingOneSource(targetError: .milliseconds(250), serverSlew: 500e-6).maximumInterval == .seconds(500))
        #expect(PollPolicy().trustingOneSource(targetError: .milliseconds(10), serverSlew: 500e-6).maximumInterval == .seconds(64), "never below the minimum")
        #expect(PollPolicy().trustingOneSource(targetError: .seconds(1), serverSlew: 500e-6).maximumInterval == .seconds(1024), "never above the maximum")
        #expect(PollPolicy().trustingOneSource(targetError: .milliseconds(250), serverSlew: 0).maximumInterval == .seconds(1024), "steady servers assumed")
        let base = ManualTimeBase()
        let alone = SimulatedTimeSource("alone", offset: 5 * s, base: base)
        let sync = try TimeSynchronizer(sources: [alone], timeBase: base)
        sync.start()
        await Self.run(base, sync, for: .seconds(3600))
        let firstHour = alone.requests
        await Self.run(base, sync, for: .seconds(3 * 3600))
        let perHour = Double(alone.requests - firstHour) / 3
        #expect((7...8).contains(perHour), "\(perHour) requests an hour: one every 500 s")
        #expect(sync.clock.reading().status == .synchronized)
        await sync.stop()
    }

    @Test func pollingSlowsDownWhileTheErrorStaysSmallAndObeysTheBudget() async throws {
        let base = ManualTimeBase()
        let sources = (0..<3).map { SimulatedTimeSource("s\($0)", offset: 5 * s, base: base) }
        // Steady servers (no slew allowance): the bounds stay far below 50 ms between polls.
        let sync = try TimeSynchronizer(
            sources: sources, configuration: .init(targetError: .milliseconds(50), poll: .init(), estimator: EstimatorConfiguration(serverSlew: 0)),
            timeBase: base)
        sync.start()
        await Self.run(base, sync, for: .seconds(3600))
        let firstHour = sources.map(\.requests)
        await Self.run(base, sync, for: .seconds(3 * 3600))
        let steadyPerHour = sources.map { Double($0.requests) } .reduce(0, +) / 3 - Double(firstHour.reduce(0, +)) / 3
        // A burst of 4, then 64 s doubling to the 1024 s maximum: about 3.5 requests an hour a source
        // once steady, 4 + 6 in the first hour.
        print("synchronizer, 3 sources at a 50 ms target error: \(firstHour) requests in the first hour, \(steadyPerHour / 3) per source and hour in hours 2-4")
        #expect(firstHour.allSatisfy { (9...12).contains($0) }, "\(firstHour)")
        #expect(steadyPerHour / 3 <= 4, "\(steadyPerHour / 3) requests per source and hour")
        #expect(sync.clock.reading().status == .synchronized)
        await sync.stop()

        // The default slew allowance widens the bounds 0.5 ms a second between polls: a 50 ms target
        // keeps polling at the 64 s floor, and the error never passes the target; the default target
        // (250 ms) backs off as a steady server allows.
        let slewing = (0..<3).map { SimulatedTimeSource("w\($0)", offset: 5 * s, base: base) }
        let tight = try TimeSynchronizer(sources: slewing, configuration: .init(targetError: .milliseconds(50)), timeBase: base)
        tight.start()
        await Self.run(base, tight, for: .seconds(3600))
        let tightFirstHour = slewing.map(\.requests).reduce(0, +)
        await Self.run(base, tight, for: .seconds(3600))
        let tightPerHour = Double(slewing.map(\.requests).reduce(0, +) - tightFirstHour) / 3
        print("synchronizer, slew allowance, 50 ms target: \(tightPerHour) requests per source and hour")
        #expect((50...60).contains(tightPerHour), "\(tightPerHour)")
        #expect(tight.clock.reading().error <= .milliseconds(50))
        await tight.stop()
        let relaxed = (0..<3).map { SimulatedTimeSource("r\($0)", offset: 5 * s, base: base) }
        let byDefault = try TimeSynchronizer(sources: relaxed, timeBase: base)
        byDefault.start()
        await Self.run(base, byDefault, for: .seconds(3600))
        let relaxedFirstHour = relaxed.map(\.requests).reduce(0, +)
        await Self.run(base, byDefault, for: .seconds(3 * 3600))
        let relaxedPerHour = Double(relaxed.map(\.requests).reduce(0, +) - relaxedFirstHour) / 9
        #expect(relaxedPerHour <= 4, "\(relaxedPerHour) requests per source and hour")
        await byDefault.stop()

        // The same under a 6-an-hour budget for all three sources together.
        let capped = (0..<3).map { SimulatedTimeSource("c\($0)", offset: 5 * s, base: base) }
        let budgeted = try TimeSynchronizer(sources: capped, configuration: .init(requestsPerHour: 6), timeBase: base)
        budgeted.start()
        await Self.run(base, budgeted, for: .seconds(4 * 3600))
        let total = capped.map(\.requests).reduce(0, +)
        #expect(total <= 12 + 4 * 6, "\(total) requests in 4 hours")
        await budgeted.stop()
    }

    @Test func resynchronizingStartsABurstOnEverySource() async throws {
        let base = ManualTimeBase()
        let sources = (0..<2).map { SimulatedTimeSource("s\($0)", offset: 5 * s, base: base) }
        let sync = try TimeSynchronizer(sources: sources, timeBase: base)
        sync.start()
        await Self.run(base, sync, for: .seconds(600))
        let before = sources.map(\.requests)
        await Self.settle(base, sync)
        sync.resynchronize(reason: "the app entered the foreground")
        // The woken loop polls at once (yielding, never sleeping, until it has).
        for _ in 0..<100_000 where sources.map(\.requests) == before { await Task.yield() }
        await Self.run(base, sync, for: .seconds(10))
        let after = sources.map(\.requests)
        let added = zip(before, after).map { $1 - $0 }
        #expect(added.allSatisfy { $0 >= 4 }, "\(before) → \(after)")
        await sync.stop()
    }

    @Test func anUnreachableSourceIsSaidSo() async throws {
        let base = ManualTimeBase()
        let down = SimulatedTimeSource("down", offset: 5 * s, base: base)
        down.failing = true
        let sources = [down, SimulatedTimeSource("up", offset: 5 * s, base: base)]
        let sync = try TimeSynchronizer(sources: sources, timeBase: base)
        sync.start()
        await Self.run(base, sync, for: .seconds(3600))
        let states = Dictionary(uniqueKeysWithValues: sync.diagnostics().sources.map { ($0.source, $0.state) })
        #expect(states == ["down": .unreachable, "up": .selected])
        #expect(sync.clock.reading().status == .provisional, "one of the two agreeing sources min(3, 2) = 2 answers")
        await sync.stop()
    }

    @Test(.timeLimit(.minutes(1))) func anOfflineDeviceDoesNotBurstOnEveryWake() async throws {
        let base = ManualTimeBase()
        let sources = (0..<2).map { SimulatedTimeSource("s\($0)", offset: 5 * s, base: base) }
        let sync = try TimeSynchronizer(sources: sources, configuration: .init(maximumCalibrationAge: .seconds(1800)), timeBase: base)
        sync.start()
        await Self.run(base, sync, for: .seconds(60))
        for source in sources { source.failing = true }  // offline from here on
        let before = sources.map(\.requests)
        await Self.run(base, sync, for: .seconds(3 * 3600))
        let perSourceAndHour = zip(before, sources.map(\.requests)).map { Double($1 - $0) / 3 }
        // Backoff to 1024 s, and one burst of 4 each time the calibration is older than 30 minutes:
        // about 3.5 + 2 × 4 an hour; far fewer than a burst on every wake.
        print("offline: \(perSourceAndHour) requests per source and hour")
        #expect(perSourceAndHour.allSatisfy { $0 <= 14 }, "\(perSourceAndHour) requests per source and hour")
        await sync.stop()
    }
}

/// When nothing answers, the synchronizer says so once, with each source's error (the one-liner logs
/// it), and each source's state says why it is not used.
@Suite struct SilenceTests {
    @Test func whenNoSourceAnswersItSaysSoOnce() async throws {
        let base = ManualTimeBase()
        let sources = (0..<2).map { SimulatedTimeSource("s\($0)", offset: 0, base: base) }
        for source in sources { source.failing = true }
        let sync = try TimeSynchronizer(sources: sources, timeBase: base)
        let events = sync.events()
        let reported = Task { () -> [String: String]? in
            for await event in events {
                if case .noSourceAnswered(let errors) = event { return errors }
            }
            return nil
        }
        sync.start()
        await TimeSynchronizerTests.run(base, sync, for: .seconds(30))
        await sync.stop()
        let errors = try #require(await reported.value)
        #expect(Set(errors.keys) == ["s0", "s1"])
        #expect(errors.values.allSatisfy { $0.contains("Unreachable") })
        #expect(sync.clock.reading().status == .unsynchronized)
        #expect(sync.diagnostics().sources.allSatisfy { $0.lastFailure != nil })
    }
}
