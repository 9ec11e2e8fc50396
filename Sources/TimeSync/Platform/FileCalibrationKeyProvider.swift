// Where it is the default: Linux (and other systems without a Keychain), and macOS processes that
// cannot use the data protection Keychain (a command-line tool without a keychain entitlement).
#if !canImport(Darwin) || os(macOS)
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A calibration key in a file of its own (mode 0600, in a directory of mode 0700): the default on
/// Linux, where there is no Keychain, and on macOS for a process the data protection Keychain refuses.
///
/// Keep it in a different directory from the store: whoever can write the store but not read this
/// file cannot forge a store. The key is created on first use with 32 random bytes. A key file is
/// used only when it is a regular file (not a symbolic link, a FIFO or a device), owned by this
/// process's user and readable by nobody else, and holds at least 32 bytes; anything else is refused
/// with a ``CalibrationKeyError`` that says what to fix, rather than trusted.
public struct FileCalibrationKeyProvider: CalibrationKeyProvider {
    /// The key file.
    public let url: URL

    /// A provider for a key file.
    public init(url: URL) {
        self.url = url
    }

    /// On Linux `$XDG_DATA_HOME/timesync/keys/calibration.key`, or
    /// `~/.local/share/timesync/keys/calibration.key`; on macOS
    /// `~/Library/Application Support/TimeSync/keys/calibration.key` (inside the app's container
    /// when it is sandboxed).
    public static var defaultURL: URL {
        #if os(macOS)
        let support =
            FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
            ?? URL(fileURLWithPath: NSHomeDirectory(), isDirectory: true).appendingPathComponent("Library/Application Support", isDirectory: true)
        return support.appendingPathComponent("TimeSync/keys/calibration.key")
        #else
        let environment = ProcessInfo.processInfo.environment
        let base: URL
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            base = URL(fileURLWithPath: data, isDirectory: true)
        } else {
            base = URL(fileURLWithPath: NSHomeDirectory(), isDirectory: true).appendingPathComponent(".local/share", isDirectory: true)
        }
        return base.appendingPathComponent("timesync/keys/calibration.key")
        #endif
    }

    public func key() throws -> [UInt8] {
        if let existing = try existingKey() { return existing }
        let directory = url.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw CalibrationKeyError("cannot create \(directory.path): \(error.localizedDescription)")
        }
        // Create exclusively: two processes starting at once end up with the same key.
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            if errno == EEXIST, let existing = try existingKey() { return existing }
            throw CalibrationKeyError("cannot create \(url.path): \(Self.systemError(errno))")
        }
        let key = Self.randomKey()
        let written = key.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        let synced = fsync(descriptor)
        close(descriptor)
        guard written == key.count, synced == 0 else {
            try? FileManager.default.removeItem(at: url)
            throw CalibrationKeyError("cannot write \(url.path)")
        }
        return key
    }

    /// The key in the file, `nil` when there is no file.
    ///
    /// The file is opened without following a symbolic link and without blocking (a FIFO planted at
    /// the path cannot hang the caller), then checked on the open descriptor, so what is checked is
    /// what is read.
    private func existingKey() throws -> [UInt8]? {
        let descriptor = open(url.path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            let error = errno
            if error == ENOENT { return nil }
            if error == ELOOP {
                throw CalibrationKeyError("\(url.path) is a symbolic link; the key must be a regular file of its own (remove the link)")
            }
            throw CalibrationKeyError("cannot read \(url.path): \(Self.systemError(error))")
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw CalibrationKeyError("cannot read \(url.path): \(Self.systemError(errno))")
        }
        guard status.st_mode & mode_t(S_IFMT) == mode_t(S_IFREG) else {
            throw CalibrationKeyError("\(url.path) is not a regular file; remove it and a new key is made")
        }
        guard status.st_uid == geteuid() else {
            throw CalibrationKeyError(
                "\(url.path) belongs to user \(status.st_uid), not to this process's user \(geteuid()): a key another user planted is not trusted")
        }
        guard status.st_mode & 0o077 == 0 else {
            throw CalibrationKeyError("\(url.path) is readable by other users (mode \(String(status.st_mode & 0o777, radix: 8))); make it 0600")
        }
        var bytes = [UInt8](repeating: 0, count: 4096)
        var count = 0
        while count < bytes.count {
            let got = bytes.withUnsafeMutableBytes { buffer in
                read(descriptor, buffer.baseAddress! + count, buffer.count - count)
            }
            if got < 0, errno == EINTR { continue }
            guard got >= 0 else { throw CalibrationKeyError("cannot read \(url.path): \(Self.systemError(errno))") }
            if got == 0 { break }
            count += got
        }
        guard count >= Self.minimumKeyLength else {
            throw CalibrationKeyError("\(url.path) holds \(count) bytes, fewer than \(Self.minimumKeyLength)")
        }
        return Array(bytes.prefix(count))
    }

    private static func systemError(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}
#endif
