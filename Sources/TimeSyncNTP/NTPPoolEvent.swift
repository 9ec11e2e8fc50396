import TimeSync
import TimeSyncWire

/// What an `NTPPoolSource` did, for logs, metrics and tests.
package enum NTPPoolEvent: Sendable, Hashable {
    /// A server name resolved; these addresses (IP text) are now polled.
    case resolved(server: NTPServerAddress, addresses: [String])
    /// A server name did not resolve; it is retried after `retryIn`.
    case resolutionFailed(server: NTPServerAddress, error: String, retryIn: Duration)
    /// A reply became a sample and was fed to the clock.
    case sample(OffsetSample)
    /// An exchange failed (timeout, network error, rejected reply); the source is polled again after
    /// `retryIn`. The clock is unchanged.
    case failed(source: String, error: String, retryIn: Duration)
    /// A Kiss-o'-Death: `RATE` lengthens the poll interval (`retryIn`); `DENY` and `RSTR` stop the
    /// source (`retryIn` is `nil`) and remove it from the clock.
    case kissOfDeath(source: String, code: NTPReferenceID, retryIn: Duration?)
}
