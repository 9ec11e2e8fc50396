import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A secret kept in a file (a calibration key, NTS master keys), trusted only when its owner alone
/// controls it, as OpenSSH's `StrictModes` trusts a key file: a regular file (not a FIFO or a
/// device), owned by this process's user, readable and writable by nobody else, on a path whose every
/// directory, from `/` down, belongs to that user or root and is writable by neither its group nor
/// others unless it is sticky (``checkPath(_:)``). A key another user could plant or swap, or send
/// elsewhere by renaming a directory above it, would let them forge what the key authenticates.
package enum OwnerOnlyFile {
    /// Why a file or directory is not trusted, in words that say what to fix.
    package struct Refusal: Error, Sendable, CustomStringConvertible {
        package var description: String
        /// The path's error, when a component of the path is what is not trusted.
        package var underlying: UntrustedPathError?

        package init(description: String, underlying: UntrustedPathError? = nil) {
            self.description = description
            self.underlying = underlying
        }

        init(_ error: UntrustedPathError) {
            self.init(description: error.description, underlying: error)
        }
    }

    /// The file's bytes (at most `limit` of them), or `nil` when there is no file.
    ///
    /// The path is checked first (``checkDirectory(_:)`` on the file's directory), then the file is
    /// opened without following a symbolic link and without blocking (a FIFO planted at the path
    /// cannot hang the caller), and checked on the open descriptor, so what is checked is what is read.
    /// - Parameters:
    ///   - path: The file.
    ///   - limit: The most bytes read.
    ///   - followingLinksWithinDirectory: Whether the file may be a symbolic link that resolves inside
    ///     its own directory (as each file of a Kubernetes Secret volume is a root-owned link into
    ///     `..data/`): every link on the way must belong to this process's user or root, and every
    ///     directory it passes through is checked. Otherwise a link is refused.
    /// - Throws: ``Refusal`` for a file or path another user could control, or one that cannot be read.
    package static func contents(of path: String, limit: Int, followingLinksWithinDirectory: Bool = false) throws(Refusal) -> [UInt8]? {
        let directory = (path as NSString).deletingLastPathComponent
        let resolvedDirectory: String?
        do {
            resolvedDirectory = try checkDirectory(directory)
        } catch {
            throw Refusal(error)
        }
        var target = path
        var status = stat()
        if followingLinksWithinDirectory, lstat(path, &status) == 0, status.st_mode & mode_t(S_IFMT) == mode_t(S_IFLNK) {
            let walk: (resolved: String, exists: Bool)
            do {
                walk = try checkPath(path)
            } catch {
                throw Refusal(error)
            }
            let inside = resolvedDirectory.map { $0 == "/" ? "/" : $0 + "/" }
            guard walk.exists, let inside, walk.resolved.hasPrefix(inside) else {
                throw Refusal(
                    description:
                        "\(path) is a symbolic link to \(walk.resolved)\(walk.exists ? "" : ", which does not exist"), outside its directory \(resolvedDirectory ?? directory); a key must be a regular file in that directory, or a link to one inside it (remove the link)"
                )
            }
            target = walk.resolved
        }
        let descriptor = open(target, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            let error = errno
            if error == ENOENT { return nil }
            if error == ELOOP {
                throw Refusal(description: "\(path) is a symbolic link; a key must be a regular file of its own (remove the link)")
            }
            throw Refusal(description: "cannot read \(path): \(systemError(error))")
        }
        defer { close(descriptor) }
        guard fstat(descriptor, &status) == 0 else { throw Refusal(description: "cannot read \(path): \(systemError(errno))") }
        guard status.st_mode & mode_t(S_IFMT) == mode_t(S_IFREG) else {
            throw Refusal(description: "\(path) is not a regular file (a FIFO, a device or a directory); remove it")
        }
        guard status.st_uid == geteuid() else {
            throw Refusal(
                description: "\(path) belongs to user \(status.st_uid), not to this process's user \(geteuid()): a key another user planted is not trusted")
        }
        guard status.st_mode & 0o077 == 0 else {
            throw Refusal(
                description: "\(path) is open to other users (mode \(String(status.st_mode & 0o777, radix: 8))); make it 0600 (chmod 600)")
        }
        guard let bytes = readBytes(from: descriptor, limit: limit) else {
            throw Refusal(description: "cannot read \(path): \(systemError(errno))")
        }
        return bytes
    }

    /// Creates a secret file as this type trusts one: mode 0600, exclusively (a file or a symbolic
    /// link already at the path fails with `EEXIST`), written and synced; a file not fully written is
    /// removed.
    /// - Returns: `nil` on success, else the `errno` of the failure.
    package static func create(_ path: String, bytes: [UInt8]) -> Int32? {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return errno }
        var written = 0
        while written < bytes.count {
            let got = bytes.withUnsafeBytes { buffer in
                #if canImport(Glibc)
                Glibc.write(descriptor, buffer.baseAddress! + written, buffer.count - written)
                #elseif canImport(Musl)
                Musl.write(descriptor, buffer.baseAddress! + written, buffer.count - written)
                #else
                Darwin.write(descriptor, buffer.baseAddress! + written, buffer.count - written)
                #endif
            }
            if got < 0, errno == EINTR { continue }
            guard got > 0 else { break }
            written += got
        }
        let failure: Int32? = written < bytes.count ? (errno == 0 ? EIO : errno) : (flushToStorage(descriptor) ? nil : errno)
        close(descriptor)
        if failure != nil { unlink(path) }
        return failure
    }

    /// Makes a file's written bytes durable: `fsync`, and on Apple platforms `F_FULLFSYNC`, since there
    /// `fsync` only hands the data to the drive, whose cache may lose it at power loss (fsync(2) on
    /// macOS). A file system that does not support `F_FULLFSYNC` gets `fsync`.
    /// - Returns: Whether it succeeded (`errno` says why not).
    static func flushToStorage(_ descriptor: Int32) -> Bool {
        #if canImport(Darwin)
        if fcntl(descriptor, F_FULLFSYNC) != -1 { return true }
        #endif
        return fsync(descriptor) == 0
    }

    /// Reads from a descriptor until its end or `limit` bytes, whichever comes first.
    /// - Returns: The bytes; `nil` on a read error (`errno` says which).
    package static func readBytes(from descriptor: Int32, limit: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: max(0, limit))
        var count = 0
        while count < bytes.count {
            let got = bytes.withUnsafeMutableBytes { buffer in
                #if canImport(Glibc)
                Glibc.read(descriptor, buffer.baseAddress! + count, buffer.count - count)
                #elseif canImport(Musl)
                Musl.read(descriptor, buffer.baseAddress! + count, buffer.count - count)
                #else
                Darwin.read(descriptor, buffer.baseAddress! + count, buffer.count - count)
                #endif
            }
            if got < 0, errno == EINTR { continue }
            guard got >= 0 else { return nil }
            if got == 0 { break }
            count += got
        }
        return Array(bytes.prefix(count))
    }

    /// Checks the directory that holds (or is to hold) a secret, and every directory above it
    /// (``checkPath(_:)``). A missing directory passes: whoever creates it creates it 0700.
    /// - Returns: The directory with every symbolic link resolved; `nil` when it does not exist (yet).
    /// - Throws: `UntrustedPathError`, also when the path names something other than a directory.
    @discardableResult
    package static func checkDirectory(_ path: String) throws(UntrustedPathError) -> String? {
        let directory = path.isEmpty ? "." : path
        let walk = try checkPath(directory)
        guard walk.exists else { return nil }
        var status = stat()
        guard stat(walk.resolved, &status) == 0, status.st_mode & mode_t(S_IFMT) == mode_t(S_IFDIR) else {
            throw UntrustedPathError(.notADirectory, path: directory, component: walk.resolved)
        }
        return walk.resolved
    }

    /// The most symbolic links followed in one path, as Linux's `MAXSYMLINKS`.
    static let maximumLinks = 40

    /// Walks `path` from `/`, one component at a time, and checks every directory on the way and
    /// every symbolic link met, as OpenSSH's `StrictModes` does: a directory must belong to this
    /// process's user or to root and be writable by neither its group nor others, unless it is
    /// sticky (`/tmp`, mode 1777); a symbolic link must belong to this process's user or to root, and
    /// what it points to is walked the same way. Whoever controls a component could otherwise rename
    /// what lies beneath it, or point it elsewhere, and send the file where they like.
    ///
    /// The last component is checked like the others when it is a directory; a file there is left to
    /// the caller. The walk stops, without error, where the path stops existing (or runs into a file).
    /// - Parameter path: An absolute path, or one relative to the current directory.
    /// - Returns: The path with every symbolic link resolved (as far as it exists), and whether all
    ///   of it exists.
    /// - Throws: `UntrustedPathError` naming the first component that is not trusted.
    package static func checkPath(_ path: String) throws(UntrustedPathError) -> (resolved: String, exists: Bool) {
        #if canImport(Darwin) && !os(macOS)
        // iOS, tvOS, watchOS and visionOS: every app runs as one user, in a container the kernel's
        // sandbox keeps every other app out of. No other user can rename a directory above it, and
        // the sandbox may refuse to let the app inspect those directories at all: the path is trusted
        // as the sandbox trusts it.
        let resolved = (path as NSString).resolvingSymlinksInPath
        return (resolved, FileManager.default.fileExists(atPath: resolved))
        #else
        return try walk(path)
        #endif
    }

    /// ``checkPath(_:)``'s walk, component by component.
    private static func walk(_ path: String) throws(UntrustedPathError) -> (resolved: String, exists: Bool) {
        var pending = components(of: path)
        if !path.hasPrefix("/") {
            pending = components(of: FileManager.default.currentDirectoryPath) + pending
        }
        // `resolved` never holds a symbolic link, so its parent is its text without the last component.
        var resolved = "/"
        var links = 0
        try checkComponent("/", path: path)
        while !pending.isEmpty {
            let name = pending.removeFirst()
            if name == "." { continue }
            if name == ".." {
                resolved = (resolved as NSString).deletingLastPathComponent
                if resolved.isEmpty { resolved = "/" }
                continue
            }
            let candidate = resolved == "/" ? "/" + name : resolved + "/" + name
            var status = stat()
            guard lstat(candidate, &status) == 0 else {
                let error = errno
                if error == ENOENT || error == ENOTDIR { return (candidate, false) }
                throw UntrustedPathError(.uninspectable(systemError(error)), path: path, component: candidate)
            }
            switch status.st_mode & mode_t(S_IFMT) {
            case mode_t(S_IFLNK):
                try checkOwner(status, path: path, component: candidate, isSymbolicLink: true)
                links += 1
                guard links <= maximumLinks else { throw UntrustedPathError(.tooManyLinks, path: path, component: candidate) }
                guard let target = linkTarget(candidate) else {
                    throw UntrustedPathError(.uninspectable(systemError(errno)), path: path, component: candidate, isSymbolicLink: true)
                }
                if target.hasPrefix("/") { resolved = "/" }
                pending = components(of: target) + pending
            case mode_t(S_IFDIR):
                try checkComponent(candidate, path: path, status: status)
                resolved = candidate
            default:
                // A file: the end of the path, or a path that runs into a file (the caller's open says so).
                return (candidate, pending.isEmpty)
            }
        }
        return (resolved, true)
    }

    /// Checks one directory, already `lstat`ed or not.
    private static func checkComponent(_ directory: String, path: String, status known: stat? = nil) throws(UntrustedPathError) {
        var status = stat()
        if let known {
            status = known
        } else if lstat(directory, &status) != 0 {
            throw UntrustedPathError(.uninspectable(systemError(errno)), path: path, component: directory)
        }
        try checkOwner(status, path: path, component: directory, isSymbolicLink: false)
        let sticky = status.st_mode & mode_t(S_ISVTX) != 0
        guard status.st_mode & 0o022 == 0 || sticky else {
            throw UntrustedPathError(
                .writableByOthers, path: path, component: directory, owner: UInt32(status.st_uid), mode: UInt32(status.st_mode))
        }
    }

    private static func checkOwner(_ status: stat, path: String, component: String, isSymbolicLink: Bool) throws(UntrustedPathError) {
        guard status.st_uid == geteuid() || status.st_uid == 0 else {
            throw UntrustedPathError(
                .ownedByAnotherUser, path: path, component: component, owner: UInt32(status.st_uid), mode: UInt32(status.st_mode),
                isSymbolicLink: isSymbolicLink)
        }
    }

    /// The path's components, without empty ones.
    private static func components(of path: String) -> [String] {
        path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
    }

    /// What a symbolic link holds; `nil` on failure (`errno` says why).
    private static func linkTarget(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count >= 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Creates a directory and the missing ones above it, as `mkdir -p` does, each with `mode` (less
    /// what the umask takes away): with a mode no one else can write, what is made passes
    /// ``checkPath(_:)`` whatever the umask.
    /// - Returns: `nil` once the directory is there, else the directory that could not be made and
    ///   the `errno` (`ENOTDIR` naming the file where a directory must be).
    package static func makeDirectories(_ path: String, mode: mode_t) -> (path: String, error: Int32)? {
        var status = stat()
        if stat(path, &status) == 0 {
            return status.st_mode & mode_t(S_IFMT) == mode_t(S_IFDIR) ? nil : (path, ENOTDIR)
        }
        if errno == ENOTDIR {
            var parent = (path as NSString).deletingLastPathComponent
            while !parent.isEmpty, parent != "/", stat(parent, &status) != 0 { parent = (parent as NSString).deletingLastPathComponent }
            return (parent, ENOTDIR)
        }
        let parent = (path as NSString).deletingLastPathComponent
        if !parent.isEmpty, parent != path, let failure = makeDirectories(parent, mode: mode) { return failure }
        guard mkdir(path, mode) == 0 else {
            let error = errno
            if error == EEXIST, stat(path, &status) == 0, status.st_mode & mode_t(S_IFMT) == mode_t(S_IFDIR) { return nil }
            return (path, error)
        }
        return nil
    }

    /// `strerror`'s text.
    package static func systemError(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}
