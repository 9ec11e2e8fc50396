import Foundation

/// A ``CalibrationStore`` in one JSON file, replaced atomically (written beside it, then renamed), so
/// a crash mid-write never leaves a half-written file.
public struct FileCalibrationStore: CalibrationStore {
    /// The file's location.
    public let url: URL

    /// Creates a store at a file URL; its directory is created on the first save.
    public init(url: URL) {
        self.url = url
    }

    /// The file's bytes; a file larger than ``PersistedCalibration/maximumSize`` is not read whole:
    /// only one byte past the limit, enough for the restore to reject it.
    public func load() throws -> Data? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        return try handle.read(upToCount: PersistedCalibration.maximumSize + 1) ?? Data()
    }

    public func save(_ data: Data) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: url, options: .atomic)
    }

    public func remove() throws {
        guard FileManager.default.fileExists(atPath: url.path) else { return }
        try FileManager.default.removeItem(at: url)
    }
}
