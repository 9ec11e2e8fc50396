import Foundation
import TimeSync

/// A line of a hosts file that is not a server address.
public struct NTPHostsFileError: TimeSyncError {
    /// The kinds of unusable hosts file.
    public enum Code: Sendable, Hashable {
        /// A line is not a server address (``NTPHostsFileError/line`` and ``NTPHostsFileError/text``
        /// say which).
        case notAnAddress
    }

    /// The line number, from 1.
    public let line: Int
    /// The offending text, comment removed.
    public let text: String

    /// Creates an error for a line.
    public init(line: Int, text: String) {
        self.line = line
        self.text = text
    }

    /// Which kind of failure this is.
    public var code: Code { .notAnAddress }

    public var description: String { "line \(line): not an NTP server address: \(text)" }
}
