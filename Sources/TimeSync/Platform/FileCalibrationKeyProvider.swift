import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A calibration key in a file of its own (mode 0600, in a directory of mode 0700): the default on
/// Linux, where there is no Keychain.
///
/// Keep it in a different directory from the store: whoever can write the store but not read this
/// file cannot forge a store. The key is created on first use with 32 random bytes; a key file that
/// is shorter, or readable by other users, is refused rather than used.
public struct FileCalibrationKeyProvider: CalibrationKeyProvider {
    /// The key file.
    public let url: URL

    /// A provider for a key file.
    public init(url: URL) {
        self.url = url
    }

    /// `$XDG_DATA_HOME/timesync/keys/calibration.key`, or `~/.local/share/timesync/keys/calibration.key`.
    public static var defaultURL: URL {
        let environment = ProcessInfo.processInfo.environment
        let base: URL
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            base = URL(fileURLWithPath: data, isDirectory: true)
        } else {
            base = FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share", isDirectory: true)
        }
        return base.appendingPathComponent("timesync/keys/calibration.key")
    }

    public func key() throws -> [UInt8] {
        if let existing = try read() { return existing }
        let directory = url.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw CalibrationKeyError("cannot create \(directory.path): \(error.localizedDescription)")
        }
        // Create exclusively: two processes starting at once end up with the same key.
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            if errno == EEXIST, let existing = try read() { return existing }
            throw CalibrationKeyError("cannot create \(url.path): \(String(cString: strerror(errno)))")
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
    private func read() throws -> [UInt8]? {
        var status = stat()
        guard stat(url.path, &status) == 0 else {
            if errno == ENOENT { return nil }
            throw CalibrationKeyError("cannot read \(url.path): \(String(cString: strerror(errno)))")
        }
        guard status.st_mode & 0o077 == 0 else {
            throw CalibrationKeyError("\(url.path) is readable by other users (mode \(String(status.st_mode & 0o777, radix: 8))); make it 0600")
        }
        guard let handle = FileHandle(forReadingAtPath: url.path) else {
            throw CalibrationKeyError("cannot open \(url.path)")
        }
        defer { try? handle.close() }
        let bytes = Array((try? handle.read(upToCount: 4096)) ?? Data())
        guard bytes.count >= Self.minimumKeyLength else {
            throw CalibrationKeyError("\(url.path) holds \(bytes.count) bytes, fewer than \(Self.minimumKeyLength)")
        }
        return bytes
    }
}
