import Foundation
import Testing
import TimeSync
import TimeSyncFixtures
import TimeSyncTesting

/// What is restored never decides against what the sources say now: a store must verify under the
/// install's key, only configured sources are restored, and restored samples count for nothing once
/// fresh ones come.
@Suite struct StoreTrustTests {
    let key = FixedCalibrationKey(seed: 7)
    static let day: Int64 = 86_400 * Fixture.second
    static let honest = ["a.example:123", "b.example:123", "c.example:123"]

    /// A store as a forger would write it: `sources` each with four tight samples at `offset` (θ), the
    /// last one a second ago, in this boot session (its tag under the test's key, as a clock writes it).
    static func content(sources: [String], offset: Int64, base: ManualTimeBase, version: Int = PersistedCalibration.currentVersion) throws -> Data {
        let now = base.monotonicNow()
        var samples: [OffsetSample] = []
        for source in sources {
            for step in 0..<4 {
                let t1 = now.advanced(by: .seconds(-64 * (3 - step) - 1))
                samples.append(try Fixture.exchange(source, offset: offset, at: t1, forward: 1_000_000, backward: 1_000_000))
            }
        }
        var persisted = PersistedCalibration(
            bootSessionID: PersistedCalibration.bootSessionTag(base.bootSessionID!, key: FixedCalibrationKey(seed: 7).bytes), savedAt: now.advanced(by: .seconds(-1)), strategy: "intersection",
            calibration: nil, samples: samples)
        persisted.version = version
        return try persisted.encoded()
    }

    /// θ of a server that agrees with the manual time base's wall clock.
    static func truth(_ base: ManualTimeBase) -> Int64 { Fixture.offset(serverAheadOfWall: 0, base: base) }

    func clock(_ base: ManualTimeBase, store: Data, restorable: Set<String>? = Set(honest), warnings: WarningLog) -> ServerClock {
        ServerClock(
            timeBase: base, configuration: .init(minimumAgreeingSources: 3, restorableSources: restorable),
            store: MemoryStore(store), keyProvider: key, onWarning: warnings.record)
    }

    /// Three honest sources answer, a second apart; returns the clock's offset error then (ns).
    func answerHonestly(_ clock: ServerClock, _ base: ManualTimeBase) throws -> Int64 {
        for source in Self.honest {
            clock.calibrate(with: try Fixture.exchange(source, offset: Self.truth(base), at: base.monotonicNow()))
            base.advance(by: .seconds(1))
        }
        let calibration = try #require(clock.calibration)
        return calibration.offset(at: base.monotonicNow()).estimate - Self.truth(base)
    }

    @Test(arguments: ["unsealed", "another key"])
    func aStoreThatDoesNotVerifyIsIgnored(_ kind: String) throws {
        let base = ManualTimeBase()
        let forged = try Self.content(sources: ["x1", "x2", "x3", "x4"], offset: Self.truth(base) + Self.day, base: base)
        let data = kind == "unsealed" ? forged : try PersistedCalibration.seal(content: forged, key: Array(repeating: 1, count: 32))
        let warnings = WarningLog()
        let clock = clock(base, store: data, restorable: nil, warnings: warnings)
        #expect(clock.calibration == nil)
        #expect(clock.reading().status == .unsynchronized)
        #expect(warnings.all.count == 1 && warnings.all[0].contains("stored calibration ignored"), "\(warnings.all)")
    }

    /// A forged store sealed as if the forger had the key: four invented sources
    /// a day ahead against three live honest ones.
    @Test func inventedSourcesAreDroppedAtRestore() throws {
        let base = ManualTimeBase()
        let data = try PersistedCalibration.seal(
            content: try Self.content(sources: ["x1", "x2", "x3", "x4"], offset: Self.truth(base) + Self.day, base: base), key: key.bytes)
        let warnings = WarningLog()
        let clock = clock(base, store: data, warnings: warnings)
        #expect(clock.calibration == nil, "samples of unconfigured sources must not restore")
        let error = try answerHonestly(clock, base)
        #expect(abs(error) < 20 * Fixture.millisecond)
        #expect(clock.reading().status == .synchronized)
        #expect(Set(try #require(clock.calibration).sources) == Set(Self.honest))
    }

    /// Even when restoring every source (no configured list), restored samples never outvote fresh
    /// ones: four restored liars, then three fresh honest sources decide.
    @Test func restoredSamplesNeverOutvoteFreshOnes() throws {
        let base = ManualTimeBase()
        let data = try PersistedCalibration.seal(
            content: try Self.content(sources: ["x1", "x2", "x3", "x4"], offset: Self.truth(base) + Self.day, base: base), key: key.bytes)
        let clock = clock(base, store: data, restorable: nil, warnings: WarningLog())
        let restored = clock.reading()
        #expect(restored.isRestored && restored.status == .synchronized)
        // The first fresh sample alone: provisional (one of three), the lie is gone.
        clock.calibrate(with: try Fixture.exchange(Self.honest[0], offset: Self.truth(base), at: base.monotonicNow()))
        #expect(clock.reading().status == .provisional)
        #expect(!clock.reading().isRestored)
        let error = try answerHonestly(clock, base)
        #expect(abs(error) < 20 * Fixture.millisecond)
        #expect(clock.reading().status == .synchronized)
        #expect(Set(try #require(clock.calibration).sources) == Set(Self.honest))
    }

    /// The real sources' names, shifted a day: restored (offline it is all there is, flagged), then
    /// each source's first fresh answer refuses the contradicting history.
    @Test func aShiftedHistoryOfRealSourcesGivesWayToTheirFirstAnswers() throws {
        let base = ManualTimeBase()
        let data = try PersistedCalibration.seal(
            content: try Self.content(sources: Self.honest, offset: Self.truth(base) + Self.day, base: base), key: key.bytes)
        let clock = clock(base, store: data, warnings: WarningLog())
        #expect(clock.reading().isRestored)
        let error = try answerHonestly(clock, base)
        #expect(abs(error) < 20 * Fixture.millisecond, "error \(error) ns")
        #expect(clock.reading().status == .synchronized)
    }

    /// An agreeing history is taken: it lengthens each source's window (its rate is measured over
    /// the stored span), and the fresh answer still decides where the bounds are.
    @Test func anAgreeingHistoryIsKept() throws {
        let base = ManualTimeBase()
        let data = try PersistedCalibration.seal(
            content: try Self.content(sources: Self.honest, offset: Self.truth(base), base: base), key: key.bytes)
        let store = MemoryStore(data)
        let clock = ServerClock(
            timeBase: base, configuration: .init(minimumAgreeingSources: 3, restorableSources: Set(Self.honest)),
            store: store, keyProvider: key)
        _ = try answerHonestly(clock, base)
        #expect(clock.reading().status == .synchronized)
        // Four restored samples and one fresh one per source, saved again.
        try clock.flush()
        let saved = try JSONDecoder().decode(
            PersistedCalibration.self, from: try PersistedCalibration.content(ofSealed: try #require(try store.load()), key: key.bytes))
        for source in Self.honest {
            #expect(saved.samples.filter { $0.source == source }.count == 5, "\(source)")
        }
    }

    /// Restoring is linear: a store of 4,096 sources (one sample each) restores with one fit per
    /// source and one vote, in the same outcome as adding them one by one.
    @Test func restoreGivesTheSameOutcomeAsAddingOneByOne() throws {
        let base = ManualTimeBase()
        var samples: [OffsetSample] = []
        for index in 0..<512 {
            samples.append(try Fixture.exchange("s\(index)", offset: Self.truth(base), at: base.monotonicNow().advanced(by: .seconds(-Int64(index % 7)))))
        }
        var batch = IntersectionEstimator()
        var single = IntersectionEstimator()
        var outcome = EstimatorOutcome.noSamples
        for sample in samples.sorted(by: { $0.time < $1.time }) { outcome = single.add(sample) }
        #expect(batch.restore(samples) == outcome)
        #expect(Set(batch.samples) == Set(single.samples))
    }
}
