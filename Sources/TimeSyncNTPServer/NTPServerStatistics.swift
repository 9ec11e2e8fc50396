#if NTPServer
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Logging
import Metrics
import NIOCore
import NIOPosix
import ServiceLifecycle
import TimeSync
import TimeSyncServerSupport

/// What an ``NTPServer`` has done since it started.
public struct NTPServerStatistics: Sendable, Hashable {
    /// Datagrams received.
    public var received = 0
    /// Replies sent (not counting kisses).
    public var replied = 0
    /// Kiss-o'-Death `RATE` replies sent.
    public var kissesSent = 0
    /// NTS-authenticated replies sent (counted in ``replied`` too).
    public var authenticatedReplies = 0
    /// NTS NAKs sent (Kiss-o'-Death `NTSN`: a cookie the server could not use).
    public var negativeAcknowledgments = 0
    /// Datagrams not answered, by reason.
    public var dropped: [NTPServerDropReason: Int] = [:]

    /// All datagrams not answered.
    public var droppedTotal: Int { dropped.values.reduce(0, +) }

    /// Adds another count to this one.
    mutating func add(_ other: NTPServerStatistics) {
        received += other.received
        replied += other.replied
        kissesSent += other.kissesSent
        authenticatedReplies += other.authenticatedReplies
        negativeAcknowledgments += other.negativeAcknowledgments
        dropped.merge(other.dropped, uniquingKeysWith: +)
    }
}
#endif
