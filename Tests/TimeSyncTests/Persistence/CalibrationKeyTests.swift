import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
import TimeSync
import TimeSyncFixtures
import TimeSyncTesting

/// Where the store's key comes from: a provider that refuses at launch (a Keychain before the
/// device's first unlock) is asked again at each write, and a key file is trusted only when it is a
/// regular file of this user's that nobody else can read, in a directory nobody else can write.
@Suite struct CalibrationKeyTests {
    /// Refuses the first `refusals` reads, as a locked Keychain does, then gives the key.
    final class LockedUntilFirstUnlock: CalibrationKeyProvider {
        private let state: Locked<Int>
        let bytes = FixedCalibrationKey(seed: 3).bytes
        init(refusals: Int) { state = Locked(refusals) }
        func key() throws -> [UInt8] {
            try state.withLock { refusals in
                guard refusals == 0 else {
                    refusals -= 1
                    throw CalibrationKeyError("the Keychain is locked until the device is first unlocked")
                }
                return bytes
            }
        }
    }

    @Test func aKeyRefusedAtLaunchIsAskedForAgainAndTheStoreIsWrittenOnceItComes() throws {
        let base = ManualTimeBase()
        let store = MemoryCalibrationStore()
        let provider = LockedUntilFirstUnlock(refusals: 2)
        let warnings = WarningLog()
        let synchronous = ServerClock.Configuration(persistence: PersistencePolicy(writesInBackground: false))
        let clock = ServerClock(timeBase: base, configuration: synchronous, store: store, keyProvider: provider, onWarning: warnings.record)
        #expect(warnings.all.count == 1)
        #expect(warnings.all.first?.contains("asks for the key again") == true, "\(warnings.all)")
        // The second refusal: this change's write is refused (a storeFailed event), nothing else is lost.
        clock.calibrate(with: try Fixture.exchange(offset: 42 * Fixture.second, at: base.monotonicNow()))
        #expect(try store.load() == nil)
        // Unlocked: the next write seals the store under the key, and a relaunch restores it.
        try clock.flush()
        let sealed = try #require(try store.load())
        #expect(throws: Never.self) { try PersistedCalibration.content(ofSealed: sealed, key: provider.bytes) }
        base.advance(by: .seconds(16))  // the relaunch comes after the sample's reply
        let relaunchWarnings = WarningLog()
        let relaunched = ServerClock(timeBase: base, store: store, keyProvider: provider, onWarning: relaunchWarnings.record)
        #expect(relaunchWarnings.all.isEmpty, "\(relaunchWarnings.all)")
        #expect(relaunched.calibration != nil && relaunched.reading().isRestored)
    }

    @Test func aSystemWithoutBootSessionsSaysSoAndNeitherRestoresNorSaves() throws {
        let base = ManualTimeBase(bootSessionID: nil)
        let store = MemoryCalibrationStore()
        let warnings = WarningLog()
        let clock = ServerClock(timeBase: base, store: store, keyProvider: FixedCalibrationKey(seed: 1), onWarning: warnings.record)
        #expect(warnings.all.count == 1)
        #expect(warnings.all.first?.contains("neither a boot session identifier nor its boot time") == true, "\(warnings.all)")
        clock.calibrate(with: try Fixture.exchange(offset: 42 * Fixture.second, at: base.monotonicNow()))
        try clock.flush()
        #expect(try store.load() == nil)
    }

    // MARK: The key file

    // FileCalibrationKeyProvider exists where the code keeps it, on macOS and Linux.
    #if !canImport(Darwin) || os(macOS)

    /// This test's own directory (0700), removed at its end.
    let temporary: TemporaryDirectory

    init() throws {
        temporary = try TemporaryDirectory("timesync-key")
    }

    var directory: URL { temporary.url }

    var keyURL: URL { directory.appendingPathComponent("calibration.key") }

    /// The provider's error for what is at the key's path.
    func refusal() -> String? {
        do {
            _ = try FileCalibrationKeyProvider(url: keyURL).key()
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test func aKeyIsCreatedPrivateAndReadBackTheSame() throws {
        let first = try FileCalibrationKeyProvider(url: keyURL).key()
        #expect(first.count == 32)
        #expect(try FileCalibrationKeyProvider(url: keyURL).key() == first)
        let mode = try FileManager.default.attributesOfItem(atPath: keyURL.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test func aSymbolicLinkIsRefusedEvenToAGoodKey() throws {
        let target = directory.appendingPathComponent("planted.key")
        _ = try FileCalibrationKeyProvider(url: target).key()
        try FileManager.default.createSymbolicLink(at: keyURL, withDestinationURL: target)
        #expect(refusal()?.contains("symbolic link") == true, "\(refusal() ?? "accepted")")
    }

    @Test func aFIFOIsRefusedWithoutWaitingForAWriter() throws {
        #expect(mkfifo(keyURL.path, 0o600) == 0)
        #expect(refusal()?.contains("not a regular file") == true, "\(refusal() ?? "accepted")")
    }

    @Test func aFileOthersCanReadIsRefused() throws {
        _ = try FileCalibrationKeyProvider(url: keyURL).key()
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: keyURL.path)
        #expect(refusal()?.contains("is open to other users (mode 644); make it 0600") == true, "\(refusal() ?? "accepted")")
    }

    @Test func aShortKeyIsRefused() throws {
        #expect(FileManager.default.createFile(atPath: keyURL.path, contents: Data(repeating: 1, count: 16), attributes: [.posixPermissions: 0o600]))
        #expect(refusal()?.contains("fewer than 32") == true, "\(refusal() ?? "accepted")")
    }

    @Test(.enabled(if: geteuid() == 0, "only root can give a file to another user"))
    func aKeyAnotherUserOwnsIsRefused() throws {
        _ = try FileCalibrationKeyProvider(url: keyURL).key()
        #expect(chown(keyURL.path, 65534, 65534) == 0)
        #expect(refusal()?.contains("belongs to user 65534") == true, "\(refusal() ?? "accepted")")
    }

    @Test func aKeyInADirectoryOthersCanWriteIsRefused() throws {
        _ = try FileCalibrationKeyProvider(url: keyURL).key()
        #expect(chmod(directory.path, 0o777) == 0)
        #expect(refusal()?.contains("is writable by other users (mode 777)") == true, "\(refusal() ?? "accepted")")
        #expect(chmod(directory.path, 0o720) == 0)
        #expect(refusal()?.contains("is writable by other users (mode 720)") == true, "group-writable: \(refusal() ?? "accepted")")
    }

    @Test(.enabled(if: geteuid() == 0, "only root can give a directory to another user"))
    func aKeyInADirectoryAnotherUserOwnsIsRefused() throws {
        _ = try FileCalibrationKeyProvider(url: keyURL).key()
        #expect(chown(directory.path, 65534, 65534) == 0)
        #expect(refusal()?.contains("belongs to user 65534, neither this process's user") == true, "\(refusal() ?? "accepted")")
    }

    /// Whoever can write the key's directory could plant a key and a store sealed with it, a day
    /// ahead: the store is not restored, and the clock says why.
    @Test func aStoreSealedWithAKeyPlantedInAnOpenDirectoryIsNotRestored() throws {
        #expect(chmod(directory.path, 0o777) == 0)
        let planted = [UInt8](repeating: 7, count: 32)
        #expect(FileManager.default.createFile(atPath: keyURL.path, contents: Data(planted), attributes: [.posixPermissions: 0o600]))
        let base = ManualTimeBase()
        let store = MemoryCalibrationStore()
        let forger = ServerClock(timeBase: base, store: store, keyProvider: FixedCalibrationKey(planted))
        forger.calibrate(with: try Fixture.exchange(offset: 86_400_000_000_000, at: base.monotonicNow()))
        try forger.flush()
        base.advance(by: .seconds(1))
        let warnings = Locked<[String]>([])
        let clock = ServerClock(
            timeBase: base, store: store, keyProvider: FileCalibrationKeyProvider(url: keyURL), onWarning: { text in warnings.withLock { $0.append(text) } })
        #expect(!clock.isSynchronized)
        #expect(warnings.withLock { $0 }.contains { $0.contains("writable by other users") }, "\(warnings.withLock { $0 })")
    }
    #endif
}
