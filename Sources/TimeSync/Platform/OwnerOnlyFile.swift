import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A secret kept in a file (a calibration key, NTS master keys), trusted only when its owner alone
/// controls it, as OpenSSH's `StrictModes` trusts a key file: a regular file (not a symbolic link, a
/// FIFO or a device), owned by this process's user, readable and writable by nobody else, in a
/// directory owned by that user (or root) that neither its group nor others can write. A key another
/// user could plant or swap would let them forge what the key authenticates.
package enum OwnerOnlyFile {
    /// Why a file or directory is not trusted, in words that say what to fix.
    package struct Refusal: Error, Sendable, CustomStringConvertible {
        package var description: String
    }

    /// The file's bytes (at most `limit` of them), or `nil` when there is no file.
    ///
    /// The file is opened without following a symbolic link and without blocking (a FIFO planted at
    /// the path cannot hang the caller), then checked on the open descriptor, so what is checked is
    /// what is read. Its directory is checked first.
    /// - Throws: ``Refusal`` for a file or directory another user could control, or one that cannot
    ///   be read.
    package static func contents(of path: String, limit: Int) throws(Refusal) -> [UInt8]? {
        try checkDirectory((path as NSString).deletingLastPathComponent)
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            let error = errno
            if error == ENOENT { return nil }
            if error == ELOOP {
                throw Refusal(description: "\(path) is a symbolic link; a key must be a regular file of its own (remove the link)")
            }
            throw Refusal(description: "cannot read \(path): \(systemError(error))")
        }
        defer { close(descriptor) }
        var status = stat()
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
        let failure: Int32? = written < bytes.count ? (errno == 0 ? EIO : errno) : (fsync(descriptor) == 0 ? nil : errno)
        close(descriptor)
        if failure != nil { unlink(path) }
        return failure
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

    /// Checks the directory that holds (or is to hold) a secret: owned by this process's user or by
    /// root, and writable by neither its group nor others (who could swap the file inside). A missing
    /// directory passes: whoever creates it creates it 0700.
    /// - Throws: ``Refusal``.
    package static func checkDirectory(_ path: String) throws(Refusal) {
        let directory = path.isEmpty ? "." : path
        var status = stat()
        guard stat(directory, &status) == 0 else {
            let error = errno
            if error == ENOENT { return }
            throw Refusal(description: "cannot inspect the directory \(directory): \(systemError(error))")
        }
        guard status.st_mode & mode_t(S_IFMT) == mode_t(S_IFDIR) else {
            throw Refusal(description: "\(directory) is not a directory")
        }
        guard status.st_uid == geteuid() || status.st_uid == 0 else {
            throw Refusal(
                description: "the directory \(directory) belongs to user \(status.st_uid), neither this process's user \(geteuid()) nor root: its owner could swap the key; keep keys in a directory of your own")
        }
        guard status.st_mode & 0o022 == 0 else {
            throw Refusal(
                description: "the directory \(directory) is writable by other users (mode \(String(status.st_mode & 0o777, radix: 8))): they could swap the key; make it 0700 (chmod 700)")
        }
    }

    /// `strerror`'s text.
    package static func systemError(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}
