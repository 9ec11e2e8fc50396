#if RoughtimeServer
import TimeSync
import TimeSyncServerSupport

/// What a ``RoughtimeServer`` has done since it started.
public struct RoughtimeServerStatistics: Sendable, Hashable {
    /// Datagrams received.
    public var received = 0
    /// Replies sent.
    public var replied = 0
    /// Signed batches: each cost one signature per version in it.
    public var batches = 0
    /// Online keys delegated, the first included.
    public var delegations = 0
    /// Datagrams not answered, by reason.
    public var dropped: [RoughtimeDropReason: Int] = [:]

    /// All datagrams not answered.
    public var droppedTotal: Int { dropped.values.reduce(0, +) }

    public init() {}
}
#endif
