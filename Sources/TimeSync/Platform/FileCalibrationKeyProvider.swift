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
/// file cannot forge a store. The key is created on first use with 32 random bytes (the file 0600,
/// its directory 0700). A key file is used only when this process's user alone controls it, as
/// OpenSSH's `StrictModes` checks a key: a regular file (not a symbolic link, a FIFO or a device),
/// owned by this process's user, mode 0600, holding at least 32 bytes, on a path whose every
/// directory from `/` down belongs to that user or root and is writable by neither group nor others
/// (unless sticky, as `/tmp` is), every symbolic link on it belonging to that user or root. Anything
/// else is refused with a `CalibrationKeyError` that says what to fix (its `underlying` an
/// `UntrustedPathError` when a component of the path is the cause), and nothing is created.
package struct FileCalibrationKeyProvider: CalibrationKeyProvider {
    /// The key file.
    package let url: URL

    /// A provider for a key file.
    package init(url: URL) {
        self.url = url
    }

    /// On Linux `$XDG_DATA_HOME/timesync/keys/calibration.key`, or
    /// `~/.local/share/timesync/keys/calibration.key`; on macOS
    /// `~/Library/Application Support/TimeSync/keys/calibration.key` (inside the app's container
    /// when it is sandboxed).
    package static var defaultURL: URL {
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

    #if os(macOS)
    /// The key file in an app group's shared container, for the processes of one app group (an app
    /// and its extensions) that share a store: `TimeSync/keys/calibration.key` under
    /// `FileManager.containerURL(forSecurityApplicationGroupIdentifier:)`, `nil` when the system gives
    /// no container. On macOS the container's URL comes back even for a group the process is not in
    /// (the `com.apple.security.application-groups` entitlement names the groups it is in); the
    /// key file's checks then refuse a path this process does not own.
    /// - Parameter group: The app group's identifier, exactly as in the entitlement.
    package static func appGroupURL(_ group: String) -> URL? {
        FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: group)?.appendingPathComponent("TimeSync/keys/calibration.key")
    }
    #endif

    package func key() throws(TimeSyncError) -> [UInt8] {
        return try TimeSyncError.converting(otherwise: .keyUnavailable) {
            if let existing = try existingKey() { return existing }
            let directory = url.deletingLastPathComponent()
            // Each directory made 0700, whatever the umask would allow, so that the path stays trusted.
            if let failure = OwnerOnlyFile.makeDirectories(directory.path, mode: 0o700) {
                throw CalibrationKeyError(.unavailable, "cannot create \(failure.path): \(OwnerOnlyFile.systemError(failure.error))")
            }
            do {
                try OwnerOnlyFile.checkDirectory(directory.path)
            } catch {
                throw CalibrationKeyError(.untrustedFile, "\(error)", underlying: error)
            }
            // Create exclusively: two processes starting at once end up with the same key.
            let key = Self.randomKey()
            if let failure = OwnerOnlyFile.create(url.path, bytes: key) {
                if failure == EEXIST, let existing = try existingKey() { return existing }
                throw CalibrationKeyError(.unavailable, "cannot create \(url.path): \(OwnerOnlyFile.systemError(failure))")
            }
            return key
        }
    }

    /// The key in the file, `nil` when there is no file; refused unless this process's user alone
    /// controls the file and its directory (``OwnerOnlyFile``).
    private func existingKey() throws -> [UInt8]? {
        let bytes: [UInt8]?
        do {
            bytes = try OwnerOnlyFile.contents(of: url.path, limit: 4096)
        } catch {
            throw CalibrationKeyError(.untrustedFile, error.description, underlying: error.underlying)
        }
        guard let bytes else { return nil }
        guard bytes.count >= Self.minimumKeyLength else {
            throw CalibrationKeyError(.keyTooShort, "\(url.path) holds \(bytes.count) bytes, fewer than \(Self.minimumKeyLength)")
        }
        return bytes
    }
}
#endif
