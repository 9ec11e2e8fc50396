/// Where a ``TimeSynchronizer`` gets the time: one server. The transport modules make them:
/// `.ntp(_:)` (TimeSyncNTP), `.api(_:)` and `.https(_:)` (TimeSyncHTTP), `.nts(_:)` (TimeSyncNTS),
/// `.roughtime(_:)` (TimeSyncRoughtime).
///
/// A source reads the synchronizer's clocks: the ``TimeBase`` given to the synchronizer is the one
/// its sources time their exchanges with.
public struct TimeSource: Sendable, CustomStringConvertible {
    /// The source's name, unique among a synchronizer's sources: diagnostics and events use it.
    public let name: String
    /// Which time the source tells.
    public let reference: TimeReference
    /// Whether the server signs its replies (NTS, Roughtime), so that no one on the path can forge
    /// them. A signed source bounds what unsigned ones may claim.
    public let isAuthenticated: Bool
    private let make: @Sendable (any TimeBase) -> any SourceDriver

    /// A source whose driver is made on the synchronizer's time base.
    package init(_ make: @escaping @Sendable (any TimeBase) -> any SourceDriver) {
        let probe = make(SystemTimeBase())
        name = probe.name
        reference = probe.reference
        isAuthenticated = probe.isAuthenticated
        self.make = make
    }

    /// A source over a driver as it is, whatever the synchronizer's time base.
    package init(_ driver: any SourceDriver) {
        self.init { _ in driver }
    }

    /// The driver that measures the server, reading `timeBase`'s clocks.
    package func driver(on timeBase: any TimeBase) -> any SourceDriver { make(timeBase) }

    public var description: String { name }
}
