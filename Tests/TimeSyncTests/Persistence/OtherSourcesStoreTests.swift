import Foundation
import Testing
import TimeSync
import TimeSyncFixtures
import TimeSyncTesting

/// A store only a run with its sources rewrites as theirs: a run with other sources (a mistyped
/// URL) that never calibrates saves the right run's samples again, and the next right run restores them.
@Suite struct OtherSourcesStoreTests {
    let key = FixedCalibrationKey(seed: 17)

    func clock(_ base: ManualTimeBase, _ store: MemoryCalibrationStore, sources: Set<String>) -> ServerClock {
        ServerClock(
            timeBase: base,
            configuration: .init(persistence: PersistencePolicy(writesInBackground: false), restorableSources: sources),
            store: store, keyProvider: key)
    }

    @Test func aRunWithAMistypedSourceDoesNotEraseTheStore() throws {
        let base = ManualTimeBase()
        let store = MemoryCalibrationStore()
        let good = clock(base, store, sources: ["api.example.com"])
        for _ in 0..<4 {
            good.calibrate(with: try Fixture.exchange("api.example.com", offset: Fixture.offset(serverAheadOfWall: 42, base: base), at: base.monotonicNow()))
            base.advance(by: .seconds(16))
        }
        #expect(good.isSynchronized)
        try good.flush()
        // A run against a mistyped name: nothing answers; it flushes on exit.
        let typo = clock(base, store, sources: ["api.exmaple.com"])
        #expect(typo.reading().status == .floorOnly, "only the floor: none of its sources was saved")
        base.advance(by: .seconds(30))
        try typo.flush()
        // The next run with the right name starts from the saved calibration.
        let again = clock(base, store, sources: ["api.example.com"])
        #expect(again.reading().isRestored)
        #expect(again.reading().status == .synchronized)
        let offset = base.wallNow().duration(to: again.reading().serverTime)
        #expect(offset > .milliseconds(41_900) && offset < .milliseconds(42_100), "\(offset)")
    }
}
