import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
import TimeSync
import TimeSyncFixtures
import TimeSyncTesting

/// A file store writes only where it may: nothing, an empty file, or a store (of any version, under
/// any key) is replaced; anything else at the path is refused with a typed error naming it, when the
/// clock opens the store, and is left exactly as it was, however long the clock runs. Nothing blocks.
@Suite struct FileCalibrationStoreTests {
    /// This test's own directory, removed at its end.
    let temporary: TemporaryDirectory
    let key = FixedCalibrationKey([UInt8](repeating: 3, count: 32))

    init() throws {
        temporary = try TemporaryDirectory("timesync-store")
    }

    var directory: URL { temporary.url }

    var path: URL { directory.appendingPathComponent("calibration.json") }

    /// Opens a clock on the store, calibrates it and flushes: what a running `watch --store` does.
    /// - Returns: The warnings and whether the flush threw.
    func runClock(on store: FileCalibrationStore) throws -> (warnings: [String], flushFailed: Bool) {
        let base = ManualTimeBase()
        let warnings = Locked<[String]>([])
        let clock = ServerClock(timeBase: base, store: store, keyProvider: key, onWarning: { text in warnings.withLock { $0.append(text) } })
        clock.calibrate(with: try Fixture.exchange(offset: 0, at: base.monotonicNow()))
        let flushFailed = (try? clock.flush()) == nil
        return (warnings.withLock { $0 }, flushFailed)
    }

    /// The store error for what is at the path, `nil` when it is accepted.
    func refusal(_ store: FileCalibrationStore) -> FileCalibrationStoreError? {
        do {
            try store.validate()
            return nil
        } catch {
            return layerError(error, as: FileCalibrationStoreError.self)
        }
    }

    @Test func aTextFileIsRefusedAndNeverReplaced() throws {
        let notes = Data(String(repeating: "meeting notes, do not lose\n", count: 22_000).utf8)
        try notes.write(to: path)
        let store = FileCalibrationStore(url: path)
        let refused = refusal(store)
        #expect(refused?.path == path.path && refused?.code == .notAStore(size: Int64(notes.count)))
        let run = try runClock(on: store)
        #expect(run.warnings.contains { $0.contains("is a file of \(notes.count) bytes that is not a TimeSync calibration store") }, "\(run.warnings)")
        #expect(try Data(contentsOf: path) == notes)
        #expect(throws: TimeSyncError.self) { try store.save(Data("{}".utf8)) }
        #expect(throws: TimeSyncError.self) { try store.remove() }
        #expect(try Data(contentsOf: path) == notes)
    }

    @Test func aHugeSparseFileIsRefusedWithoutBeingRead() throws {
        #expect(FileManager.default.createFile(atPath: path.path, contents: nil))
        let handle = try FileHandle(forWritingTo: path)
        try handle.truncate(atOffset: 2 << 30)
        try handle.close()
        let store = FileCalibrationStore(url: path)
        let refused = refusal(store)
        #expect(refused?.path == path.path && refused?.code == .notAStore(size: 2 << 30))
        _ = try runClock(on: store)
        let size = try FileManager.default.attributesOfItem(atPath: path.path)[.size] as? Int64
        #expect(size == 2 << 30)
    }

    @Test func aSymbolicLinkIsRefusedAndLeftAsItIs() throws {
        let target = directory.appendingPathComponent("target.txt")
        try Data("target".utf8).write(to: target)
        try FileManager.default.createSymbolicLink(at: path, withDestinationURL: target)
        let store = FileCalibrationStore(url: path)
        let refused = refusal(store)
        #expect(refused?.path == path.path && refused?.code == .symbolicLink)
        _ = try runClock(on: store)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: path.path) == target.path)
        #expect(try Data(contentsOf: target) == Data("target".utf8))
    }

    /// A FIFO with no writer would block a plain `open` for reading forever.
    @Test func aFIFOIsRefusedWithoutBlocking() throws {
        #expect(mkfifo(path.path, 0o600) == 0)
        let store = FileCalibrationStore(url: path)
        let refused = refusal(store)
        #expect(refused?.path == path.path && refused?.code == .notAFile("a FIFO"))
        #expect(throws: TimeSyncError.self) { try store.load() }
        _ = try runClock(on: store)
        var status = stat()
        #expect(lstat(path.path, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO)
    }

    @Test func aDirectoryIsRefused() throws {
        try FileManager.default.createDirectory(at: path, withIntermediateDirectories: true)
        let store = FileCalibrationStore(url: path)
        let refused = refusal(store)
        #expect(refused?.path == path.path && refused?.code == .notAFile("a directory"))
        #expect(refusal(store)?.description.contains("give the path of a new file") == true)
    }

    @Test(.enabled(if: geteuid() == 0, "only root can make a device node"))
    func aDeviceIsRefusedAndNeverWritten() throws {
        // The null device's numbers (1, 3), made inside this test's own directory.
        #expect(mknod(path.path, S_IFCHR | 0o600, (1 << 8) | 3) == 0)
        let store = FileCalibrationStore(url: path)
        let refused = refusal(store)
        #expect(refused?.path == path.path && refused?.code == .notAFile("a device"))
        _ = try runClock(on: store)
        var status = stat()
        #expect(lstat(path.path, &status) == 0 && status.st_mode & S_IFMT == S_IFCHR)
    }

    /// Nothing, an empty file, a store sealed under another key, and a store of format version 1 are
    /// all stores to replace.
    @Test(arguments: ["absent", "empty", "other key", "version 1"])
    func aStoreOrNothingIsWritten(what: String) throws {
        switch what {
        case "empty":
            #expect(FileManager.default.createFile(atPath: path.path, contents: Data()))
        case "other key":
            let other = FileCalibrationStore(url: path)
            let base = ManualTimeBase()
            let clock = ServerClock(timeBase: base, store: other, keyProvider: FixedCalibrationKey([UInt8](repeating: 9, count: 32)))
            clock.calibrate(with: try Fixture.exchange(offset: 0, at: base.monotonicNow()))
            try clock.flush()
        case "version 1":
            try Data(#"{"version": 1, "bootSessionID": "b", "savedAt": {"nanoseconds": 0}, "strategy": "default", "samples": []}"#.utf8).write(to: path)
        default: break
        }
        let store = FileCalibrationStore(url: path)
        #expect(refusal(store) == nil)
        let run = try runClock(on: store)
        #expect(!run.flushFailed)
        let written = try #require(try? Data(contentsOf: path))
        let object = try JSONSerialization.jsonObject(with: written) as? [String: Any]
        #expect(object?["format"] as? String == "timesync-calibration", "\(String(decoding: written, as: UTF8.self))")
    }
}
