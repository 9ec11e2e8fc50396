import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A ``CalibrationStore`` in one JSON file, replaced atomically (written beside it, then renamed), so
/// a crash mid-write never leaves a half-written file.
///
/// The store writes only where it may: the path must be absent, an empty file, or a regular file that
/// reads as a TimeSync store (of any format version, under any key). Anything else (another file, a
/// directory, a device, a FIFO, a symbolic link) is refused with a ``FileCalibrationStoreError``
/// naming the path and why, and is neither read nor replaced: a mistyped path never destroys a file.
/// A clock checks this when it opens the store (``validate()``), and each write checks it again.
/// Nothing blocks: a FIFO at the path is refused, not opened for reading.
public struct FileCalibrationStore: CalibrationStore {
    /// The file's location.
    public let url: URL

    /// Creates a store at a file URL; its directory is created on the first save.
    public init(url: URL) {
        self.url = url
    }

    /// What is at the path.
    private enum Found {
        case absent
        case empty
        case store(Data)
    }

    /// Checks that the store may be read and written.
    /// - Throws: ``FileCalibrationStoreError`` when something other than a store is at the path.
    public func validate() throws {
        _ = try inspect()
    }

    /// The file's bytes, `nil` when there is no file (or it is empty).
    /// - Throws: ``FileCalibrationStoreError`` when something other than a store is at the path.
    public func load() throws -> Data? {
        switch try inspect() {
        case .absent, .empty: nil
        case .store(let data): data
        }
    }

    /// Replaces the file with `data`, after checking that what is there is a store.
    /// - Throws: ``FileCalibrationStoreError`` when something other than a store is at the path;
    ///   the file system's errors.
    public func save(_ data: Data) throws {
        _ = try inspect()
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: url, options: .atomic)
    }

    /// Removes the file (a store, or an empty file).
    /// - Throws: ``FileCalibrationStoreError`` when something other than a store is at the path.
    public func remove() throws {
        switch try inspect() {
        case .absent: return
        case .empty, .store: try FileManager.default.removeItem(at: url)
        }
    }

    /// Reads what is at the path without following a symbolic link or blocking, and tells a store
    /// from anything else on the open descriptor.
    private func inspect() throws(FileCalibrationStoreError) -> Found {
        let path = url.path
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            let error = errno
            switch error {
            // Nothing there (ENOTDIR: a path under a file, where no store can be): nothing to clobber.
            case ENOENT, ENOTDIR: return .absent
            case ELOOP: throw FileCalibrationStoreError(path: path, code: .symbolicLink)
            default: throw FileCalibrationStoreError(path: path, code: .unreadable(OwnerOnlyFile.systemError(error)))
            }
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw FileCalibrationStoreError(path: path, code: .unreadable(OwnerOnlyFile.systemError(errno)))
        }
        switch status.st_mode & mode_t(S_IFMT) {
        case mode_t(S_IFREG): break
        case mode_t(S_IFDIR): throw FileCalibrationStoreError(path: path, code: .notAFile("a directory"))
        case mode_t(S_IFIFO): throw FileCalibrationStoreError(path: path, code: .notAFile("a FIFO"))
        case mode_t(S_IFCHR), mode_t(S_IFBLK): throw FileCalibrationStoreError(path: path, code: .notAFile("a device"))
        case mode_t(S_IFSOCK): throw FileCalibrationStoreError(path: path, code: .notAFile("a socket"))
        default: throw FileCalibrationStoreError(path: path, code: .notAFile("not a regular file"))
        }
        let size = Int64(status.st_size)
        guard size <= Int64(PersistedCalibration.maximumSize) else {
            throw FileCalibrationStoreError(path: path, code: .notAStore(size: size))
        }
        guard let bytes = OwnerOnlyFile.readBytes(from: descriptor, limit: PersistedCalibration.maximumSize + 1) else {
            throw FileCalibrationStoreError(path: path, code: .unreadable(OwnerOnlyFile.systemError(errno)))
        }
        if bytes.isEmpty { return .empty }
        let data = Data(bytes)
        guard bytes.count <= PersistedCalibration.maximumSize, PersistedCalibration.isStoreFile(data) else {
            throw FileCalibrationStoreError(path: path, code: .notAStore(size: Int64(bytes.count)))
        }
        return .store(data)
    }
}

/// Something other than a calibration store is at a ``FileCalibrationStore``'s path: it is neither
/// read nor written.
///
/// Match on ``code`` (`error.code == .symbolicLink`, `if case .notAStore = error.code`).
public struct FileCalibrationStoreError: TimeSyncError {
    /// Why the path cannot hold a store.
    public enum Code: Sendable, Hashable {
        /// A symbolic link: a store is written at its own path, never through a link.
        case symbolicLink
        /// A directory, a FIFO, a device or a socket (named).
        case notAFile(String)
        /// A file that is not a TimeSync store (its size in bytes).
        case notAStore(size: Int64)
        /// The path cannot be read (the system's reason).
        case unreadable(String)
    }

    /// The path.
    public let path: String
    /// Why the path cannot hold a store.
    public let code: Code

    /// Creates an error.
    public init(path: String, code: Code) {
        self.path = path
        self.code = code
    }

    public var description: String {
        switch code {
        case .symbolicLink:
            "\(path) is a symbolic link; a calibration store is written only at its own path: give the path of the file itself, or a new one"
        case .notAFile(let kind):
            "\(path) is \(kind), not a calibration store; give the path of a new file"
        case .notAStore(let size):
            "\(path) is a file of \(size) bytes that is not a TimeSync calibration store; it is left as it is: give the path of a new file (or of an empty one)"
        case .unreadable(let detail):
            "\(path) cannot be read (\(detail)); check its permissions, or give another path"
        }
    }
}
