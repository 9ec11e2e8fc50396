import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
import TimeSync
import TimeSyncFixtures
import TimeSyncTesting

/// Every component of a key's or a store's path is checked, from `/` down, as OpenSSH's `StrictModes`
/// checks a key: a directory above the file that another user owns, or that others can write without
/// the sticky bit, would let that user rename it and send the key or the store where they like, so
/// nothing is read or created there. Each tree is built in a fresh directory of the test's own.
@Suite struct PathTrustTests {
    let temporary: TemporaryDirectory

    init() throws {
        temporary = try TemporaryDirectory("timesync-path")
    }

    /// A directory in this test's tree, made with `mode` (umask aside).
    @discardableResult
    func makeDirectory(_ relative: String, mode: mode_t = 0o755) throws -> String {
        let path = temporary.path + "/" + relative
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        #expect(chmod(path, mode) == 0)
        return path
    }

    // The walk from `/` is made where OwnerOnlyFile makes it, on macOS and Linux (on iOS, tvOS and
    // watchOS the app's sandbox is trusted), and the key file is kept there only.
    #if !canImport(Darwin) || os(macOS)
    /// The key provider's error, with the path's error underneath.
    func keyRefusal(_ key: String) -> (error: CalibrationKeyError, path: UntrustedPathError?)? {
        do {
            _ = try FileCalibrationKeyProvider(url: URL(fileURLWithPath: key)).key()
            return nil
        } catch let error where layerError(error, as: CalibrationKeyError.self) != nil {
            let error = layerError(error, as: CalibrationKeyError.self)!
            return (error, error.underlying as? UntrustedPathError)
        } catch {
            Issue.record("not a CalibrationKeyError: \(error)")
            return nil
        }
    }

    func exists(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0
    }

    // MARK: The key file

    /// A world-writable directory two levels above the key (not sticky): refused, naming the
    /// directory, its owner and mode and the fix; the key's directory is never made.
    @Test func aWorldWritableParentRefusesTheKeyAndCreatesNothing() throws {
        let parent = try makeDirectory("parent", mode: 0o777)
        let key = parent + "/timesync/keys/calibration.key"
        let refusal = try #require(keyRefusal(key), "a key was made under a world-writable directory")
        #expect(refusal.error.code == .untrustedFile)
        let path = try #require(refusal.path, "\(refusal.error)")
        #expect(path.code == .writableByOthers && path.component == parent && path.owner == geteuid() && path.mode.map { $0 & 0o7777 } == 0o777)
        #expect(refusal.error.description.contains("the directory \(parent), owned by user \(geteuid()), is writable by other users (mode 777)"), "\(refusal.error)")
        #expect(refusal.error.description.contains("chmod go-w \(parent)"), "\(refusal.error)")
        #expect(!exists(parent + "/timesync"), "nothing is created under it")
    }

    @Test func aGroupWritableParentIsRefusedToo() throws {
        let parent = try makeDirectory("parent", mode: 0o770)
        let refusal = try #require(keyRefusal(parent + "/keys/calibration.key"))
        #expect(refusal.path?.code == .writableByOthers && refusal.path?.component == parent, "\(refusal.error)")
        #expect(!exists(parent + "/keys"))
    }

    @Test(.enabled(if: geteuid() == 0, "only root can give a directory to another user"))
    func aParentAnotherUserOwnsRefusesTheKeyAndCreatesNothing() throws {
        let parent = try makeDirectory("parent", mode: 0o755)
        #expect(chown(parent, 65534, 65534) == 0)
        let key = parent + "/keys/calibration.key"
        let refusal = try #require(keyRefusal(key), "a key was made under another user's directory")
        let path = try #require(refusal.path, "\(refusal.error)")
        #expect(path.code == .ownedByAnotherUser && path.component == parent && path.owner == 65534 && path.mode.map { $0 & 0o7777 } == 0o755)
        #expect(refusal.error.description.contains("belongs to user 65534, neither this process's user 0 nor root, with mode 755"), "\(refusal.error)")
        #expect(refusal.error.description.contains("chown 0 \(parent)"), "\(refusal.error)")
        #expect(!exists(parent + "/keys"))
    }

    /// A sticky directory (like `/tmp`) is writable by all, yet nobody can rename what is not theirs
    /// in it: the key is made beneath it.
    @Test func aStickyWorldWritableParentIsTrusted() throws {
        let parent = try makeDirectory("shared", mode: 0o1777)
        let key = parent + "/mine/keys/calibration.key"
        let made = try FileCalibrationKeyProvider(url: URL(fileURLWithPath: key)).key()
        #expect(made.count == 32)
        #expect(try FileCalibrationKeyProvider(url: URL(fileURLWithPath: key)).key() == made)
    }

    /// Every directory the provider makes is this user's alone (0700), so the path it made is one it
    /// trusts the next time, whatever the umask.
    @Test func theDirectoriesMadeForAKeyAreThisUsersAlone() throws {
        _ = try FileCalibrationKeyProvider(url: temporary.appending("a/b/keys/calibration.key")).key()
        for directory in ["a", "a/b", "a/b/keys"] {
            let mode = try FileManager.default.attributesOfItem(atPath: temporary.path + "/" + directory)[.posixPermissions] as? Int
            #expect(mode == 0o700, "\(directory)")
        }
    }

    /// Another user redirects the key's directory: in a shared (sticky) directory they own a link
    /// named as the key's directory, pointing at a directory of this user's. The link is refused
    /// for its owner, and nothing is created where it points.
    @Test(.enabled(if: geteuid() == 0, "only root can give a link to another user"))
    func aLinkAnotherUserOwnsIsRefusedAndNothingIsCreatedWhereItPoints() throws {
        let shared = try makeDirectory("shared", mode: 0o1777)
        let victim = try makeDirectory("victim", mode: 0o700)
        let link = shared + "/keys"
        #expect(symlink(victim, link) == 0)
        #expect(lchown(link, 65534, 65534) == 0)
        let refusal = try #require(keyRefusal(link + "/calibration.key"), "a key was made where another user's link points")
        let path = try #require(refusal.path, "\(refusal.error)")
        #expect(path.code == .ownedByAnotherUser && path.isSymbolicLink && path.component == link && path.owner == 65534)
        #expect(refusal.error.description.contains("the symbolic link \(link) belongs to user 65534"), "\(refusal.error)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: victim).isEmpty, "nothing created where the link points")
    }

    /// A link of this user's (or root's) is followed, and what it points to is checked the same way:
    /// a target under a world-writable directory is refused by that directory's name.
    @Test func aTrustedLinkIsFollowedAndItsTargetCheckedTheSameWay() throws {
        let real = try makeDirectory("real", mode: 0o700)
        #expect(symlink(real, temporary.path + "/link") == 0)
        let made = try FileCalibrationKeyProvider(url: URL(fileURLWithPath: temporary.path + "/link/keys/calibration.key")).key()
        #expect(made.count == 32 && exists(real + "/keys/calibration.key"))

        let open = try makeDirectory("open", mode: 0o777)
        try makeDirectory("open/inner", mode: 0o700)
        // A relative link, resolved from the link's own directory.
        #expect(symlink("open/inner", temporary.path + "/relative") == 0)
        let refusal = try #require(keyRefusal(temporary.path + "/relative/keys/calibration.key"))
        #expect(refusal.path?.code == .writableByOthers && refusal.path?.component == open, "\(refusal.error)")
        #expect(!exists(open + "/inner/keys"))
    }

    @Test func aLinkLoopIsRefused() throws {
        #expect(symlink(temporary.path + "/b", temporary.path + "/a") == 0)
        #expect(symlink(temporary.path + "/a", temporary.path + "/b") == 0)
        let refusal = try #require(keyRefusal(temporary.path + "/a/calibration.key"))
        #expect(refusal.path?.code == .tooManyLinks, "\(refusal.error)")
    }

    // MARK: The store

    /// The store's error for what `validate`, `save` and `load` find.
    func storeRefusals(_ store: FileCalibrationStore) -> [FileCalibrationStoreError] {
        var errors: [FileCalibrationStoreError] = []
        for attempt in [{ try store.validate() }, { try store.save(Data()) }, { _ = try store.load() }] {
            do {
                try attempt()
            } catch let error where layerError(error, as: FileCalibrationStoreError.self) != nil {
                errors.append(layerError(error, as: FileCalibrationStoreError.self)!)
            } catch {
                Issue.record("not a FileCalibrationStoreError: \(error)")
            }
        }
        return errors
    }

    @Test func aStoreUnderAWorldWritableDirectoryIsRefusedAndNothingIsWritten() throws {
        let parent = try makeDirectory("parent", mode: 0o777)
        let store = FileCalibrationStore(url: URL(fileURLWithPath: parent + "/timesync/calibration.json"))
        let refusals = storeRefusals(store)
        #expect(refusals.count == 3, "\(refusals)")
        for refusal in refusals {
            #expect(refusal.code == .untrustedPath && (refusal.underlying as? UntrustedPathError)?.component == parent, "\(refusal)")
            #expect(refusal.description.contains("chmod go-w \(parent)"), "\(refusal)")
        }
        #expect(!exists(parent + "/timesync"), "nothing is created under it")
        // A clock on it says so, and writes nothing.
        let base = ManualTimeBase()
        let warnings = WarningLog()
        let clock = ServerClock(timeBase: base, store: store, keyProvider: FixedCalibrationKey(seed: 1), onWarning: warnings.record)
        clock.calibrate(with: try Fixture.exchange(offset: 0, at: base.monotonicNow()))
        _ = try? clock.flush()
        #expect(warnings.all.contains { $0.contains("writable by other users") }, "\(warnings.all)")
        #expect(!exists(parent + "/timesync"))
    }

    @Test(.enabled(if: geteuid() == 0, "only root can give a directory to another user"))
    func aStoreUnderADirectoryAnotherUserOwnsIsRefused() throws {
        let parent = try makeDirectory("parent", mode: 0o755)
        try makeDirectory("parent/timesync", mode: 0o700)
        #expect(chown(parent, 65534, 65534) == 0)
        let store = FileCalibrationStore(url: URL(fileURLWithPath: parent + "/timesync/calibration.json"))
        let refusals = storeRefusals(store)
        #expect(refusals.count == 3 && refusals.allSatisfy { ($0.underlying as? UntrustedPathError)?.code == .ownedByAnotherUser }, "\(refusals)")
        #expect(!exists(parent + "/timesync/calibration.json"))
    }

    /// The user's own tree, reached through the sticky temporary directory: a store is written.
    @Test func aStoreOnATrustedPathIsWritten() throws {
        let store = FileCalibrationStore(url: temporary.appending("a/b/calibration.json"))
        #expect(storeRefusals(store).isEmpty)
        #expect(exists(temporary.path + "/a/b/calibration.json"))
    }

#endif

    /// A store that cannot be written says so in one line: the path, the system's reason and what
    /// to do, never Foundation's dump of the error; the clock's warning is that line.
    @Test func aStoreThatCannotBeWrittenSaysWhyInOneLine() async throws {
        #expect(FileManager.default.createFile(atPath: temporary.path + "/file", contents: Data("a file".utf8)))
        let path = temporary.path + "/file/timesync/calibration.json"
        let store = FileCalibrationStore(url: URL(fileURLWithPath: path))
        #expect(throws: Never.self) { try store.validate() }
        let thrownError = try #require(throws: TimeSyncError.self) { try store.save(Data()) }
        #expect(thrownError.code == .storeUnavailable)
        let error = try #require(thrownError.cause as? FileCalibrationStoreError)
        #expect(error.code == .unwritable("cannot make its directory \(temporary.path)/file: Not a directory"), "\(error)")
        #expect(
            error.description
                == "the calibration store \(path) cannot be written: cannot make its directory \(temporary.path)/file: Not a directory; give a path in a directory this user can write, or fix the permissions"
        )
        let base = ManualTimeBase()
        let clock = ServerClock(timeBase: base, store: store, keyProvider: FixedCalibrationKey(seed: 1))
        let events = clock.events()
        clock.calibrate(with: try Fixture.exchange(offset: 0, at: base.monotonicNow()))
        let thrown = try #require((try #require(throws: TimeSyncError.self) { try clock.flush() }).cause as? FileCalibrationStoreError)
        #expect(thrown.description == error.description)
        var reason: String?
        for await event in events {
            if case .storeFailed(let text) = event {
                reason = text
                break
            }
        }
        #expect(reason == error.description)
        #expect(reason.map { !$0.contains("\n") && !$0.contains("Error Domain") } == true)
    }

    /// Another store's file system error is one line too: the file, the system's reason, what to do.
    @Test func aFoundationErrorIsOneLineWithTheSystemsReason() async throws {
        let underlying = NSError(domain: NSPOSIXErrorDomain, code: Int(EACCES))
        let error = NSError(
            domain: NSCocoaErrorDomain, code: CocoaError.fileWriteNoPermission.rawValue,
            userInfo: [NSFilePathErrorKey: "/data/calibration.json", NSUnderlyingErrorKey: underlying])
        let store = FailingStore(error: error)
        let base = ManualTimeBase()
        let clock = ServerClock(timeBase: base, store: store, keyProvider: FixedCalibrationKey(seed: 1))
        let events = clock.events()
        clock.calibrate(with: try Fixture.exchange(offset: 0, at: base.monotonicNow()))
        _ = try? clock.flush()
        var reason: String?
        for await event in events {
            if case .storeFailed(let text) = event {
                reason = text
                break
            }
        }
        #expect(
            reason == "the calibration store /data/calibration.json cannot be written: Permission denied; check where the store is kept and its permissions")
    }
}

/// A store whose writes fail with a given error.
final class FailingStore: CalibrationStore {
    let error: any Error
    init(error: any Error) { self.error = error }
    func load() throws -> Data? { nil }
    func save(_ data: Data) throws { throw error }
    func remove() throws {}
}
