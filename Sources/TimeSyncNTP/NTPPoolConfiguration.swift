import TimeSync
import TimeSyncWire

/// The settings of an `NTPPoolSource`.
package struct NTPPoolConfiguration: Sendable, Hashable {
    /// The servers to use: host names (every A and AAAA record is a candidate) or IP literals.
    /// Default: ``NTPServerAddress/defaultServers``.
    package var servers: [NTPServerAddress]
    /// The most addresses polled at once, over all servers (default 8).
    package var maximumSources: Int
    /// The most addresses taken from one host name (default 4).
    package var addressesPerHost: Int
    /// Burst and poll intervals of each address.
    package var policy: PollPolicy
    /// How long to wait for each reply (default 2 s).
    package var timeout: Duration
    /// The limits replies must meet.
    package var limits: NTPReplyLimits
    /// Which addresses a server's name may resolve to (default: package ones only; IP literals and
    /// `localhost` are always used).
    package var addressPolicy: AddressPolicy

    /// Creates a configuration.
    package init(
        servers: [NTPServerAddress] = NTPServerAddress.defaultServers, maximumSources: Int = 8, addressesPerHost: Int = 4,
        policy: PollPolicy = .init(), timeout: Duration = .seconds(2), limits: NTPReplyLimits = .init(),
        addressPolicy: AddressPolicy = .publicOnly
    ) {
        self.addressPolicy = addressPolicy
        self.servers = servers
        self.maximumSources = max(1, maximumSources)
        self.addressesPerHost = max(1, addressesPerHost)
        self.policy = policy
        self.timeout = timeout
        self.limits = limits
    }
}
