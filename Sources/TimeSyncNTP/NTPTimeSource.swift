import TimeSync
import TimeSyncWire

/// One NTP server as a `SourceDriver` for a `TimeSynchronizer`: each measurement resolves the name
/// (so a server that moved is followed) and makes one exchange within the deadline.
///
/// Kiss-o'-Death codes reach the schedule: `RATE` slows the polling of this server, `DENY` and `RSTR`
/// stop it.
@available(watchOS, unavailable, message: "watchOS apps cannot use BSD sockets (Apple TN3135): use TimeSynchronizer.https() or TimeSource.https(_:)")
package struct NTPTimeSource: SourceDriver {
    /// The server.
    package let server: NTPServerAddress
    /// `host:port`; the samples carry it.
    package let name: String
    private let client: NTPClient

    /// NTP tells UTC.
    package var reference: TimeReference { .utc }

    /// A source for one server.
    /// - Parameters:
    ///   - server: The server's name or address and port.
    ///   - timeBase: The clocks; must be the synchronizer's.
    ///   - limits: The limits replies must meet.
    ///   - addressPolicy: Which addresses the name may resolve to (default: public ones only).
    package init(
        _ server: NTPServerAddress, timeBase: any TimeBase, limits: NTPReplyLimits = .init(),
        addressPolicy: AddressPolicy = .publicOnly
    ) {
        self.server = server
        self.name = server.description
        self.client = NTPClient(timeBase: timeBase, limits: limits, addressPolicy: addressPolicy)
    }

    /// Sources for several servers (a pool's names, or a hosts file's lines).
    package static func sources(
        _ servers: [NTPServerAddress], timeBase: any TimeBase, addressPolicy: AddressPolicy = .publicOnly
    ) -> [NTPTimeSource] {
        servers.map { NTPTimeSource($0, timeBase: timeBase, addressPolicy: addressPolicy) }
    }

    /// Resolves the name and makes one exchange with the first address that answers, all by
    /// `deadline`: resolution, each address tried and the exchange share it.
    /// - Returns: The reply's sample, validated, carrying ``name``.
    package func measure(until deadline: Deadline) async throws -> [OffsetSample] {
        // Listens on after the reply (max(2 round trips, 250 ms)), so a spoofer racing the server is
        // seen before its sample reaches the clock.
        try await client.samples(of: .server(server), source: name, deadline: deadline, conflictWindow: .synchronizer)
    }
}
