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
/// directory, a device, a FIFO, a symbolic link) is refused with a `FileCalibrationStoreError`
/// naming the path and why, and is neither read nor replaced: a mistyped path never destroys a file.
/// A clock checks this when it opens the store (``validate()``), and each write checks it again.
/// Nothing blocks: a FIFO at the path is refused, not opened for reading.
///
/// Nor does it write where someone else could send it: every directory on the path, from `/` down,
/// must belong to this process's user or root and be writable by neither group nor others (unless
/// sticky, as `/tmp` is), and every symbolic link on it must belong to that user or root, as for a
/// key file (`UntrustedPathError`). Otherwise the store is refused, and nothing is created.
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
    /// - Throws: `FileCalibrationStoreError` when something other than a store is at the path.
    public func validate() throws(TimeSyncError) {
        try TimeSyncError.converting(otherwise: .storeUnavailable) {
            _ = try inspect()
        }
    }

    /// The file's bytes, `nil` when there is no file (or it is empty).
    /// - Throws: `FileCalibrationStoreError` when something other than a store is at the path.
    public func load() throws(TimeSyncError) -> Data? {
        return try TimeSyncError.converting(otherwise: .storeUnavailable) {
            switch try inspect() {
            case .absent, .empty: nil
            case .store(let data): data
            }
        }
    }

    /// Replaces the file with `data`, after checking that what is there is a store; creates its
    /// directory (and those above it) when missing.
    /// - Throws: `FileCalibrationStoreError`: when something other than a store is at the path, and
    ///   `FileCalibrationStoreError.Code.unwritable(_:)` (the file system's error as its
    ///   `underlying`) when the directory or the file cannot be written.
    public func save(_ data: Data) throws(TimeSyncError) {
        try TimeSyncError.converting(otherwise: .storeUnavailable) {
            _ = try inspect()
            let directory = url.deletingLastPathComponent().path
            // Made writable by this user alone (the umask may take more away), so that the path stays
            // one this store trusts.
            if let failure = OwnerOnlyFile.makeDirectories(directory, mode: 0o755) {
                throw FileCalibrationStoreError(
                    path: url.path, code: .unwritable("cannot make its directory \(failure.path): \(OwnerOnlyFile.systemError(failure.error))"))
            }
            do {
                try data.write(to: url, options: .atomic)
            } catch {
                throw FileCalibrationStoreError(path: url.path, code: .unwritable(Self.systemReason(error)), underlying: error)
            }
        }
    }

    /// The system's words for why a file operation failed (`Permission denied`, `No space left on
    /// device`), from the POSIX error under Foundation's; Foundation's own words when there is none.
    static func systemReason(_ error: any Error) -> String {
        var current = error as NSError
        while true {
            if current.domain == NSPOSIXErrorDomain { return OwnerOnlyFile.systemError(Int32(current.code)) }
            guard let next = current.userInfo[NSUnderlyingErrorKey] as? NSError else { break }
            current = next
        }
        return (error as NSError).localizedDescription
    }

    /// Removes the file (a store, or an empty file).
    /// - Throws: `FileCalibrationStoreError` when something other than a store is at the path.
    public func remove() throws(TimeSyncError) {
        try TimeSyncError.converting(otherwise: .storeUnavailable) {
            switch try inspect() {
            case .absent: return
            case .empty, .store: try FileManager.default.removeItem(at: url)
            }
        }
    }

    /// Reads what is at the path without following a symbolic link or blocking, and tells a store
    /// from anything else on the open descriptor.
    private func inspect() throws(FileCalibrationStoreError) -> Found {
        let path = url.path
        do {
            _ = try OwnerOnlyFile.checkPath((path as NSString).deletingLastPathComponent)
        } catch {
            throw FileCalibrationStoreError(path: path, code: .untrustedPath, underlying: error)
        }
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
package struct FileCalibrationStoreError: CodedError {
    /// Why the path cannot hold a store.
    package enum Code: Sendable, Hashable {
        /// A symbolic link: a store is written at its own path, never through a link.
        case symbolicLink
        /// A directory, a FIFO, a device or a socket (named).
        case notAFile(String)
        /// A file that is not a TimeSync store (its size in bytes).
        case notAStore(size: Int64)
        /// The path cannot be read (the system's reason).
        case unreadable(String)
        /// A directory or symbolic link on the path is not one this process's user (or root) alone
        /// controls: another user could send the store elsewhere (``underlying`` is the
        /// `UntrustedPathError` naming it).
        case untrustedPath
        /// The store, or its directory, cannot be written (the system's reason: `Permission denied`,
        /// `No space left on device`, …).
        case unwritable(String)
    }

    /// The path.
    package let path: String
    /// Why the path cannot hold a store.
    package let code: Code
    /// The `UntrustedPathError` of an untrusted path; the file system's error of a failed write.
    package let underlying: (any Error)?

    /// Creates an error.
    package init(path: String, code: Code, underlying: (any Error)? = nil) {
        self.path = path
        self.code = code
        self.underlying = underlying
    }

    package var description: String {
        switch code {
        case .symbolicLink:
            "\(path) is a symbolic link; a calibration store is written only at its own path: give the path of the file itself, or a new one"
        case .notAFile(let kind):
            "\(path) is \(kind), not a calibration store; give the path of a new file"
        case .notAStore(let size):
            "\(path) is a file of \(size) bytes that is not a TimeSync calibration store; it is left as it is: give the path of a new file (or of an empty one)"
        case .unreadable(let detail):
            "\(path) cannot be read (\(detail)); check its permissions, or give another path"
        case .untrustedPath:
            "\(path) is not used as a calibration store: \(underlying.map { "\($0)" } ?? "a directory on its path is not this user's alone")"
        case .unwritable(let detail):
            "the calibration store \(path) cannot be written: \(detail); give a path in a directory this user can write, or fix the permissions"
        }
    }
}

extension FileCalibrationStoreError: TimeSyncErrorConvertible {
    package var timeSyncError: TimeSyncError {
        let kind: TimeSyncError.Code =
            switch code {
            case .symbolicLink, .notAFile, .notAStore: .notAStore
            case .unreadable, .unwritable: .storeUnavailable
            case .untrustedPath: .untrustedPath
            }
        return TimeSyncError(kind, description, cause: self)
    }
}
