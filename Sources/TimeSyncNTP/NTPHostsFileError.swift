import Foundation

/// A line of a hosts file that is not a server address.
public struct NTPHostsFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The line number, from 1.
    public let line: Int
    /// The offending text, comment removed.
    public let text: String

    /// Creates an error for a line.
    public init(line: Int, text: String) {
        self.line = line
        self.text = text
    }

    public var description: String { "line \(line): not an NTP server address: \(text)" }
}
