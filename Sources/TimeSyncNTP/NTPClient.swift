import TimeSync

/// An SNTP client over UDP: single exchanges with one server address, and one-shot queries of a
/// server by name (like `sntp` or `ntpdig`).
///
/// It runs on the system's UDP sockets (POSIX, non-blocking), with no other dependency: what an app
/// links. Every exchange uses a fresh socket on a random port, connected to the server; t1 is stamped
/// on the monotonic clock just before the request is sent, t4 as the reply is read; the request
/// carries a random transmit timestamp fraction that a genuine reply must echo.
@available(watchOS, unavailable, message: "watchOS apps cannot use BSD sockets (Apple TN3135): use TimeSynchronizer.https() or URLSessionDateSource")
public struct NTPClient: Sendable {
    /// The clocks: monotonic for t1/t4, wall for the era pivot and the seconds sent.
    public let timeBase: any TimeBase
    /// The limits replies must meet.
    public let limits: NTPReplyLimits
    /// Which addresses a server's name may resolve to (default: public ones only).
    public let addressPolicy: AddressPolicy

    /// Creates a client.
    /// - Parameters:
    ///   - timeBase: The clocks (default: the system's).
    ///   - limits: Reply acceptance limits (default: root distance ≤ 1.5 s).
    ///   - addressPolicy: Which addresses a name may resolve to (default: public ones only; an IP
    ///     literal or `localhost` is always used).
    public init(timeBase: any TimeBase = SystemTimeBase(), limits: NTPReplyLimits = .init(), addressPolicy: AddressPolicy = .publicOnly) {
        self.timeBase = timeBase
        self.limits = limits
        self.addressPolicy = addressPolicy
    }

    /// How long an exchange keeps listening after the first valid reply, to see a second, different
    /// reply to the same request (a spoofer on the path racing the server): the round trip, and at
    /// least `minimum`; never past the exchange's deadline.
    public struct ConflictWindow: Sendable, Hashable {
        /// The shortest wait after the first reply.
        public var minimum: Duration
        /// Round trips to wait after the first reply (the wait is the larger of this and `minimum`).
        public var roundTrips: Int

        /// Creates a window.
        public init(minimum: Duration, roundTrips: Int = 1) {
            self.minimum = max(.zero, minimum)
            self.roundTrips = max(0, roundTrips)
        }

        /// max(round trip, 20 ms): what a one-shot query waits.
        public static let query = ConflictWindow(minimum: .milliseconds(20))
        /// max(2 round trips, 250 ms): what a synchronizer's source waits before its sample reaches the
        /// clock, so a late conflicting reply is seen before the sample is used rather than after.
        public static let synchronizer = ConflictWindow(minimum: .milliseconds(250), roundTrips: 2)
        /// No wait: the first valid reply is returned at once (a late conflict goes unseen).
        public static let none = ConflictWindow(minimum: .zero, roundTrips: 0)

        /// The wait after a reply whose exchange took `roundTrip`.
        func wait(roundTrip: Duration) -> Duration {
            max(minimum, roundTrip * roundTrips)
        }
    }

    /// One request and its reply, within one deadline for the whole exchange.
    ///
    /// The socket is connected to `address`, so datagrams from elsewhere never arrive and an ICMP
    /// port unreachable ends the exchange at once (``NTPClientError/unreachable``). A reply whose
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
    /// - Throws: `NTPReplyError` (`.conflictingReplies` for a raced reply), ``NTPClientError``
    ///   (`.timeout` with the time waited, `.unreachable`, `.network`), `CancellationError`.
    public func exchange(
        with address: IPEndpoint, timeout: Duration, conflictWindow: ConflictWindow = .query
    ) async throws -> NTPReply {
        let started = timeBase.monotonicNow()
        let socket = try DatagramSocket(connectingTo: address, timeBase: timeBase)
        defer { socket.close() }
        let elapsed = Duration.nanoseconds(timeBase.monotonicNow().nanoseconds.saturatingSubtract(started.nanoseconds))
        socket.close(after: timeout - elapsed)
        // Stamp t1 and send, back to back.
        var generator = SystemRandomNumberGenerator()
        var pending = NTPClientRequest(wallTime: timeBase.wallNow(), monotonicTime: timeBase.monotonicNow(), using: &generator)
        try socket.send(pending.packet.encoded())
        var lastRejection: NTPReplyError?
        var accepted: NTPReply?
        while let datagram = try await socket.next() {
            let reply: NTPReply
            do {
                reply = try pending.accept(datagram.bytes, receivedAt: datagram.receivedAt, limits: limits)
            } catch {
                let rejection: NTPReplyError = error
                guard Self.isStray(rejection) else { throw rejection }
                lastRejection = rejection
                continue
            }
            let wait = conflictWindow.wait(roundTrip: .nanoseconds(reply.responseReceived.nanoseconds - reply.requestSent.nanoseconds))
            guard wait > .zero else { return reply }
            // Listen on for a conflicting reply: closing the socket at the window's end ends the loop
            // (the deadline, if sooner, still holds).
            if accepted == nil { socket.close(after: wait) }
            accepted = reply
        }
        try Task.checkCancellation()
        if let accepted { return accepted }
        if let lastRejection { throw lastRejection }
        let waited = Duration.nanoseconds(timeBase.monotonicNow().nanoseconds - started.nanoseconds)
        throw NTPClientError(.timeout, "from \(address) within \(waited.readable)\(socket.droppedUnseen.map { "; \($0)" } ?? "")")
    }

    /// Whether a rejection means "not the reply to this request" (wait on) rather than a final answer.
    private static func isStray(_ error: NTPReplyError) -> Bool {
        switch error {
        case NTPReplyError.originMismatch, NTPReplyError.duplicate, NTPReplyError.malformedPacket: true
        default: false
        }
    }
}
