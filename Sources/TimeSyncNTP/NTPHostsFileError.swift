import Foundation
import TimeSync

/// A line of a hosts file that is not a server address.
package struct NTPHostsFileError: CodedError {
    /// The kinds of unusable hosts file.
    package enum Code: Sendable, Hashable {
        /// A line is not a server address (`NTPHostsFileError.line` and `NTPHostsFileError.text`
        /// say which).
        case notAnAddress
    }

    /// The line number, from 1.
    package let line: Int
    /// The offending text, comment removed.
    package let text: String

    /// Creates an error for a line.
    package init(line: Int, text: String) {
        self.line = line
        self.text = text
    }

    /// Which kind of failure this is.
    package var code: Code { .notAnAddress }

    package var description: String { "line \(line): not an NTP server address: \(text)" }
}
