import Foundation

/// Where a reading stands relative to a window of server time.
public enum WindowPosition: String, Sendable, Hashable, Codable {
    /// Certainly before the window opens.
    case before
    /// Certainly inside the window.
    case within
    /// Certainly after the window closed.
    case after
    /// The error bounds straddle an edge (or the clock is not synchronized): cannot tell.
    case uncertain
}
