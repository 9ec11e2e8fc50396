#if NTS
import TimeSync
import TimeSyncWire
import TimeSyncNTP

/// One NTS server as a `SourceDriver` for a `TimeSynchronizer`: each measurement is one authenticated
/// exchange (with a key exchange first when the keys are spent). No unauthenticated reply ever
/// becomes a sample.
@available(watchOS, unavailable, message: "watchOS apps cannot use BSD sockets (Apple TN3135): use TimeSynchronizer.https() or TimeSource.https(_:)")
package struct NTSTimeSource: SourceDriver {
    /// The client, with its keys and cookies.
    package let client: NTSClient
    /// `nts://host:port`; the samples carry it.
    package let name: String

    /// NTS tells UTC.
    package var reference: TimeReference { .utc }

    /// NTS replies are authenticated: they bound what unauthenticated sources may claim.
    package var isAuthenticated: Bool { true }

    /// A source for the NTS-KE server at `host:port`.
    /// - Parameters:
    ///   - host: The key-exchange server (its certificate must name it).
    ///   - port: The NTS-KE port (default 4460).
    ///   - timeBase: The clocks; must be the synchronizer's.
    ///   - configuration: Trust, key age, reply limits.
    package init(
        host: String, port: Int = NTSKeyExchange.defaultPort, timeBase: any TimeBase,
        configuration: NTSClient.Configuration = .init()
    ) {
        client = NTSClient(host: host, port: port, timeBase: timeBase, configuration: configuration)
        name = "nts://" + HostPort.format(host: host, port: port)
    }

    package func measure(until deadline: Deadline) async throws -> [OffsetSample] {
        [try await client.exchanges(until: deadline, series: .init())[0].reply.sample(source: name)]
    }
}
#endif

#if NTS
extension TimeSource {
    /// An NTS server (RFC 8915): each measurement is one authenticated NTP exchange, with a TLS key
    /// exchange first when the cookies are spent. No unauthenticated reply ever becomes a sample, and
    /// its samples bound what unsigned sources may claim.
    /// - Parameters:
    ///   - host: The key-exchange server (its certificate must name it).
    ///   - port: The NTS-KE port (4460).
    ///   - configuration: Trust, key age, reply limits.
    @available(watchOS, unavailable, message: "watchOS apps cannot use BSD sockets (Apple TN3135): use .https(_:)")
    public static func nts(_ host: String, port: Int = NTSKeyExchange.defaultPort, configuration: NTSClient.Configuration = .init()) -> TimeSource {
        TimeSource { NTSTimeSource(host: host, port: port, timeBase: $0, configuration: configuration) }
    }
}
#endif
