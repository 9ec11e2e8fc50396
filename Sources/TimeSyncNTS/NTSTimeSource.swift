#if NTS
import TimeSync
import TimeSyncWire
import TimeSyncNTP

/// One NTS server as a `TimeSource` for a `TimeSynchronizer`: each measurement is one authenticated
/// exchange (with a key exchange first when the keys are spent). No unauthenticated reply ever
/// becomes a sample.
@available(watchOS, unavailable, message: "watchOS apps cannot use BSD sockets (Apple TN3135): use TimeSynchronizer.https() or URLSessionDateSource")
public struct NTSTimeSource: TimeSource {
    /// The client, with its keys and cookies.
    public let client: NTSClient
    /// `nts://host:port`; the samples carry it.
    public let name: String

    /// NTS tells UTC.
    public var reference: TimeReference { .utc }

    /// NTS replies are authenticated: they bound what unauthenticated sources may claim.
    public var isAuthenticated: Bool { true }

    /// A source for the NTS-KE server at `host:port`.
    /// - Parameters:
    ///   - host: The key-exchange server (its certificate must name it).
    ///   - port: The NTS-KE port (default 4460).
    ///   - timeBase: The clocks; must be the synchronizer's.
    ///   - configuration: Trust, key age, reply limits.
    public init(
        host: String, port: Int = NTSKeyExchange.defaultPort, timeBase: any TimeBase = SystemTimeBase(),
        configuration: NTSClient.Configuration = .init()
    ) {
        client = NTSClient(host: host, port: port, timeBase: timeBase, configuration: configuration)
        name = "nts://" + HostPort.format(host: host, port: port)
    }

    public func measure(timeout: Duration) async throws -> [OffsetSample] {
        [try await client.exchange(timeout: timeout).reply.sample(source: name)]
    }
}
#endif
