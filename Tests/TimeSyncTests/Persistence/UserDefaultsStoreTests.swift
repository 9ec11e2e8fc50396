import Foundation
import Testing
import TimeSync
import TimeSyncFixtures
import TimeSyncTesting

@Suite struct UserDefaultsStoreTests {
    /// The store's key, in memory: never the user's key file.
    let key = FixedCalibrationKey(seed: 4)

    @Test func aClockRestoresFromUserDefaults() throws {
        let suite = "TimeSyncTests.\(UUID().uuidString)"
        let store = try #require(UserDefaultsCalibrationStore(suiteName: suite))
        defer { UserDefaults().removePersistentDomain(forName: suite) }
        let base = ManualTimeBase()
        let clock = ServerClock(timeBase: base, store: store, keyProvider: key)
        clock.calibrate(with: try Fixture.exchange(offset: 5 * Fixture.second, at: base.monotonicNow()))
        try clock.flush()
        base.advance(by: .seconds(1))
        let restored = ServerClock(timeBase: base, store: store, keyProvider: key)
        #expect(restored.calibration == clock.calibration)
        try store.remove()
        #expect(try store.load() == nil)
    }

    @Test func anOversizeValueIsCutAndIgnored() throws {
        let suite = "TimeSyncTests.\(UUID().uuidString)"
        let store = try #require(UserDefaultsCalibrationStore(suiteName: suite))
        defer { UserDefaults().removePersistentDomain(forName: suite) }
        try store.save(Data(repeating: 0x20, count: PersistedCalibration.maximumSize * 2))
        #expect(try store.load()?.count == PersistedCalibration.maximumSize + 1)
        let warnings = WarningLog()
        #expect(!ServerClock(timeBase: ManualTimeBase(), store: store, keyProvider: key, onWarning: warnings.record).isSynchronized)
        #expect(warnings.all.count == 1)
    }
}
