import Foundation
import Testing
import TimeSync
import TimeSyncFixtures
import TimeSyncTesting

/// Collects warnings.
final class Warnings: Sendable {
    private let lock = NSLock()
    nonisolated(unsafe) private var messages: [String] = []  // guarded by `lock`

    func record(_ message: String) { lock.withLock { messages.append(message) } }
    var all: [String] { lock.withLock { messages } }
}

@Suite struct PersistenceTests {
    /// This test's own directory, removed at its end: the store, and the key in a directory of its own.
    let temporary: TemporaryDirectory

    init() throws {
        temporary = try TemporaryDirectory("timesync-tests")
    }

    var directory: URL { temporary.url }

    var store: FileCalibrationStore { FileCalibrationStore(url: directory.appendingPathComponent("calibration.json")) }

    /// The key file as macOS and Linux keep it, in this test's directory rather than the user's; where
    /// there is no key file (iOS, tvOS, watchOS), a fixed key.
    var key: any CalibrationKeyProvider {
        #if !canImport(Darwin) || os(macOS)
        FileCalibrationKeyProvider(url: directory.appendingPathComponent("keys/calibration.key"))
        #else
        FixedCalibrationKey(seed: 29)
        #endif
    }

    func calibratedClock(_ base: ManualTimeBase) throws -> ServerClock {
        let clock = ServerClock(timeBase: base, store: store, keyProvider: key)
        for _ in 0..<4 {
            clock.calibrate(with: try Fixture.exchange(offset: 42 * Fixture.second, at: base.monotonicNow()))
            base.advance(by: .seconds(16))
        }
        try clock.flush()
        return clock
    }

    @Test func aRestartRestoresTheCalibration() async throws {
        let base = ManualTimeBase()
        let first = try calibratedClock(base)
        let reading = first.reading()
        // The app is relaunched in the same boot session: the monotonic clock went on.
        base.advance(by: .seconds(30))
        let warnings = Warnings()
        let second = ServerClock(timeBase: base, store: store, keyProvider: key, onWarning: warnings.record)
        #expect(second.isSynchronized)
        #expect(warnings.all.isEmpty)
        #expect(second.calibration == first.calibration)
        // The same reading, marked as restored: nothing has confirmed it since the relaunch.
        var restored = reading
        restored.isRestored = true
        #expect(second.reading(at: reading.monotonicTime) == restored)
        second.calibrate(with: try Fixture.exchange(offset: 42 * Fixture.second, at: base.monotonicNow()))
        #expect(!second.reading().isRestored)
        #expect(second.isSynchronized)
        // Its write done before the test's directory is removed, not after (which would make it again).
        await second.storeWritesIdle()
    }

    @Test func aRebootDiscardsTheStoredAnchor() throws {
        let base = ManualTimeBase()
        _ = try calibratedClock(base)
        base.reboot(bootSessionID: "manual-boot-2")
        let warnings = Warnings()
        let clock = ServerClock(timeBase: base, store: store, keyProvider: key, onWarning: warnings.record)
        #expect(!clock.isSynchronized)
        #expect(clock.now == base.wallNow())
        #expect(warnings.all.count == 1)
        #expect(warnings.all.first?.contains("another boot session") == true)
    }

    /// A file that is not a store (a mistyped path) is refused when the clock opens it: a warning
    /// naming the path, and the file is never replaced, however long the clock runs.
    @Test(arguments: ["not json at all", "{\"version\": 1}", "notes\n"])
    func aFileThatIsNotAStoreIsNeverReplaced(content: String) throws {
        try Data(content.utf8).write(to: store.url)
        let base = ManualTimeBase()
        let warnings = Warnings()
        let clock = ServerClock(timeBase: base, store: store, keyProvider: key, onWarning: warnings.record)
        #expect(!clock.isSynchronized)
        #expect(warnings.all.count == 1)
        #expect(warnings.all.first?.contains("\(store.url.path) is a file of \(content.utf8.count) bytes that is not a TimeSync calibration store") == true, "\(warnings.all)")
        clock.calibrate(with: try Fixture.exchange(offset: 0, at: base.monotonicNow()))
        #expect(clock.isSynchronized)
        try clock.flush()
        #expect(try Data(contentsOf: store.url) == Data(content.utf8))
    }

    @Test(arguments: [
        "{\"version\": 99, \"bootSessionID\": \"manual-boot-1\", \"savedAt\": {\"nanoseconds\": 0}, \"strategy\": \"default\", \"samples\": []}",
        // lower > upper: an impossible interval is rejected, not trusted.
        """
        {"version": 1, "bootSessionID": "manual-boot-1", "savedAt": {"nanoseconds": 0}, "strategy": "default",
         "samples": [{"source": "s", "offset": {"lower": 10, "upper": 5}, "time": {"nanoseconds": 0}, "span": 0, "delay": 0}]}
        """,
        // Saved "in the future" of this boot's monotonic clock.
        """
        {"version": 1, "bootSessionID": "manual-boot-1", "savedAt": {"nanoseconds": 9000000000000000}, "strategy": "default", "samples": []}
        """,
    ])
    func aCorruptStoreIsIgnoredWithAWarning(content: String) throws {
        try Data(content.utf8).write(to: store.url)
        let base = ManualTimeBase()
        let warnings = Warnings()
        let clock = ServerClock(timeBase: base, store: store, keyProvider: key, onWarning: warnings.record)
        #expect(!clock.isSynchronized)
        #expect(warnings.all.count == 1)
        // And the clock works normally afterwards, replacing the bad file.
        clock.calibrate(with: try Fixture.exchange(offset: 0, at: base.monotonicNow()))
        #expect(clock.isSynchronized)
        try clock.flush()
        base.advance(by: .seconds(1))  // past the reply's arrival
        let restored = ServerClock(timeBase: base, store: store, keyProvider: key)
        #expect(restored.isSynchronized)
    }

    @Test func resetClearsTheStore() throws {
        let base = ManualTimeBase()
        let clock = try calibratedClock(base)
        #expect(try store.load() != nil)
        clock.reset()
        #expect(try store.load() == nil)
        #expect(!ServerClock(timeBase: base, store: store, keyProvider: key).isSynchronized)
    }

    @Test func theFileIsVersionedJSONStampedWithTheBootSessionsTagAndSealed() throws {
        let base = ManualTimeBase()
        _ = try calibratedClock(base)
        let data = try #require(try store.load())
        let key = try self.key.key()
        let persisted = try JSONDecoder().decode(PersistedCalibration.self, from: try PersistedCalibration.content(ofSealed: data, key: key))
        // Under another key the same bytes do not open.
        #expect(throws: (any Error).self) { try PersistedCalibration.content(ofSealed: data, key: Array(repeating: 7, count: 32)) }
        #expect(persisted.version == PersistedCalibration.currentVersion)
        // The boot session as its keyed tag: the store never holds the system's identifier.
        #expect(persisted.bootSessionID == PersistedCalibration.bootSessionTag("manual-boot-1", key: key))
        #expect(persisted.bootSessionID.count == 64 && !persisted.bootSessionID.contains("manual"))
        #expect(persisted.bootSessionID != PersistedCalibration.bootSessionTag("manual-boot-1", key: Array(repeating: 7, count: 32)))
        #expect(persisted.samples.count == 4)
        #expect(persisted.strategy == "intersection")
    }
}
