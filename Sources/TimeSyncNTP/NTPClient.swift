import TimeSync
import TimeSyncWire
import TimeSyncSockets

/// An SNTP client over UDP: single exchanges with one server address, and one-shot queries of a
/// server by name (like `sntp` or `ntpdig`).
///
/// It runs on the system's UDP sockets (POSIX, non-blocking), with no other dependency: what an app
/// links. Every exchange uses a fresh socket on a random port, connected to the server; t1 is stamped
/// on the monotonic clock just before the request is sent, t4 as the reply is read; the request
/// carries a random transmit timestamp fraction that a genuine reply must echo.
@available(watchOS, unavailable, message: "watchOS apps cannot use BSD sockets (Apple TN3135): use TimeSynchronizer.https() or TimeSource.https(_:)")
package struct NTPClient: Sendable {
    /// The clocks: monotonic for t1/t4, wall for the era pivot and the seconds sent.
    package let timeBase: any TimeBase
    /// The limits replies must meet.
    package let limits: NTPReplyLimits
    /// Which addresses a server's name may resolve to (default: package ones only).
    package let addressPolicy: AddressPolicy

    /// Creates a client.
    /// - Parameters:
    ///   - timeBase: The clocks (default: the system's).
    ///   - limits: Reply acceptance limits (default: root distance ≤ 1.5 s).
    ///   - addressPolicy: Which addresses a name may resolve to (default: package ones only; an IP
    ///     literal or `localhost` is always used).
    package init(timeBase: any TimeBase, limits: NTPReplyLimits = .init(), addressPolicy: AddressPolicy = .publicOnly) {
        self.timeBase = timeBase
        self.limits = limits
        self.addressPolicy = addressPolicy
    }

    /// How long an exchange keeps listening after the first valid reply for a conflicting one.
    package typealias ConflictWindow = NTPConflictWindow

    /// One request and its reply, within one deadline for the whole exchange.
    ///
    /// The socket is connected to `address`, so datagrams from elsewhere never arrive and an ICMP
    /// port unreachable ends the exchange at once (`NTPClientError.unreachable`). A reply whose
    /// origin does not match, an exact duplicate or an undecodable datagram is ignored and the wait goes
    /// on; if the deadline passes after such a rejection, that rejection is thrown rather than a
    /// timeout. Any other rejection of a reply that answers our request (Kiss-o'-Death, unsynchronized,
    /// zero timestamps, …) ends the exchange.
    ///
    /// After the first valid reply the socket stays open for `conflictWindow` (within the deadline): a
    /// second, different reply to the same request means someone on the path answered besides the
    /// server, and the exchange fails with `NTPReplyError.conflictingReplies` instead of returning
    /// whichever reply came first.
    /// - Parameters:
    ///   - address: The server's address.
    ///   - timeout: The deadline for the whole exchange, from before the socket opens.
    ///   - conflictWindow: How long to listen after the first reply (default: max(round trip, 20 ms)).
    /// - Returns: The validated reply, with t1 and t4 on the monotonic clock.
    /// - Throws: `NTPReplyError` (`.conflictingReplies` for a raced reply), `NTPClientError`
    ///   (`.timeout` with the time waited, `.unreachable`, `.network`), `CancellationError`.
    package func exchange(
        with address: IPEndpoint, timeout: Duration, conflictWindow: ConflictWindow = .query
    ) async throws -> NTPReply {
        var measurement = self.measurement(
            of: .addresses([address]), series: .init(), conflictWindow: conflictWindow, deadline: .after(timeout, on: timeBase))
        return try await measurement.run(on: timeBase, addressPolicy: addressPolicy)[0].answer
    }

    /// Where a measurement finds the server: a name to resolve, or addresses already known.
    package enum Target: Sendable {
        case server(NTPServerAddress)
        case addresses([IPEndpoint])
    }

    /// The one NTP measurement every query, source and pool address runs (see `DatagramMeasurement`).
    func measurement(
        of target: Target, series: DatagramMeasurement<NTPClientExchange>.Series, conflictWindow: ConflictWindow, deadline: Deadline
    ) -> DatagramMeasurement<NTPClientExchange> {
        let first = NTPClientExchange(limits: limits, conflictWindow: conflictWindow, timeout: deadline.remaining(on: timeBase))
        let timedOut: @Sendable (String) -> any Error = { NTPClientError(.timeout, $0) }
        switch target {
        case .server(let server):
            return DatagramMeasurement(host: server.host, port: server.port, first: first, series: series, deadline: deadline, timedOut: timedOut)
        case .addresses(let addresses):
            return DatagramMeasurement(addresses: addresses, first: first, series: series, deadline: deadline, timedOut: timedOut)
        }
    }
}
