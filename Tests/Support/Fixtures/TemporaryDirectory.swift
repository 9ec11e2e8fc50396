import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A fresh directory of a test's own (mode 0700, in the system's temporary directory), removed with
/// everything in it when the last reference to it goes: held by a suite, at the end of each test.
/// Tests that persist a clock keep their store and key files here, never in the user's own data
/// directory.
package final class TemporaryDirectory: Sendable {
    /// The directory.
    package let url: URL

    /// Creates the directory, named `prefix` and six random characters.
    package init(_ prefix: String = "timesync-test") throws {
        var template = Array((NSTemporaryDirectory() as NSString).appendingPathComponent(prefix + "-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        url = URL(fileURLWithPath: String(cString: made), isDirectory: true)
    }

    deinit {
        remove()
    }

    /// The directory's path.
    package var path: String { url.path }

    /// A path inside the directory.
    package func appending(_ component: String) -> URL {
        url.appendingPathComponent(component)
    }

    /// Removes the directory and everything in it, whatever a test did to their modes.
    package func remove() {
        if let entries = FileManager.default.enumerator(atPath: path) {
            for case let entry as String in entries {
                var status = stat()
                let item = path + "/" + entry
                if lstat(item, &status) == 0, status.st_mode & S_IFMT == S_IFDIR { chmod(item, 0o700) }
            }
        }
        try? FileManager.default.removeItem(at: url)
    }
}
