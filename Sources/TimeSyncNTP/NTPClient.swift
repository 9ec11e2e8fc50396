import Logging
import NIOCore
import NIOPosix
import TimeSync

/// An SNTP client over UDP: single exchanges with one server address, and one-shot queries of a
/// server by name (like `sntp` or `ntpdig`).
///
/// Every exchange uses a fresh socket on a random port. t1 is stamped on the monotonic clock on the
/// event loop just before the request is written, t4 in the channel handler as the reply is read;
/// the request carries a random transmit timestamp fraction that a genuine reply must echo.
public struct NTPClient: Sendable {
    /// The clocks: monotonic for t1/t4, wall for the era pivot and the seconds sent.
    public let timeBase: any TimeBase
    /// The event loops the sockets run on.
    public let group: any EventLoopGroup
    /// Where exchanges are logged (at debug and trace levels).
    public let logger: Logger
    /// The limits replies must meet.
    public let limits: NTPReplyLimits

    /// Creates a client.
    /// - Parameters:
    ///   - timeBase: The clocks (default: the system's).
    ///   - group: The event loops (default: NIO's shared singleton).
    ///   - limits: Reply acceptance limits (default: root distance ≤ 1.5 s).
    ///   - logger: The logger (default: discards everything).
    public init(
        timeBase: any TimeBase = SystemTimeBase(), group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        limits: NTPReplyLimits = .init(), logger: Logger = .ntpNoOp
    ) {
        self.timeBase = timeBase
        self.group = group
        self.limits = limits
        self.logger = logger
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
        with address: SocketAddress, timeout: Duration, conflictWindow: ConflictWindow = .query
    ) async throws -> NTPReply {
        let started = timeBase.monotonicNow()
        let socket: DatagramSocket
        do {
            socket = try await DatagramSocket.connect(to: address, group: group, timeBase: timeBase)
        } catch {
            throw NTPClientError(.network, "\(address.endpoint): \(error)")
        }
        defer { socket.close() }
        let channel = socket.channel
        let timeBase = self.timeBase
        let remaining = max(0, timeout.nanosecondsClamped.saturatingSubtract(timeBase.monotonicNow().nanoseconds - started.nanoseconds))
        let deadline = channel.eventLoop.scheduleTask(in: .nanoseconds(remaining)) {
            channel.close(promise: nil)
        }
        defer { deadline.cancel() }
        // Stamp t1 and write on the event loop, back to back.
        let sending: EventLoopFuture<SentRequest> = channel.eventLoop.submit { () -> SentRequest in
            Self.send(on: channel, to: address, timeBase: timeBase)
        }
        let sent: SentRequest = try await sending.get()
        let request: NTPClientRequest = sent.request
        let written: EventLoopFuture<Void> = sent.written
        do {
            try await written.get()
        } catch {
            throw NTPClientError(.network, "\(address.endpoint): \(error)")
        }
        var pending = request
        var lastRejection: NTPReplyError?
        var accepted: NTPReply?
        var listening: Scheduled<Void>?
        defer { listening?.cancel() }
        for try await datagram in socket.datagrams {
            let reply: NTPReply
            do {
                reply = try pending.accept(datagram.bytes, receivedAt: datagram.receivedAt, limits: limits)
            } catch {
                let rejection: NTPReplyError = error
                if rejection == .conflictingReplies {
                    logger.warning(
                        "NTP: two different replies to one request; exchange discarded",
                        metadata: ["server": .string("\(address.endpoint)")])
                }
                guard Self.isStray(rejection) else { throw rejection }
                logger.debug("NTP datagram ignored", metadata: ["server": .string("\(address.endpoint)"), "reason": .string("\(rejection)")])
                lastRejection = rejection
                continue
            }
            logger.debug("NTP reply", metadata: ["server": .string("\(address.endpoint)"), "stratum": .string("\(reply.packet.stratum)")])
            let wait = conflictWindow.wait(roundTrip: .nanoseconds(reply.responseReceived.nanoseconds - reply.requestSent.nanoseconds))
            guard wait > .zero else { return reply }
            // Listen on for a conflicting reply: closing the channel at the window's end ends the loop.
            accepted = reply
            listening = channel.eventLoop.scheduleTask(in: .nanoseconds(wait.nanosecondsClamped)) { channel.close(promise: nil) }
        }
        try Task.checkCancellation()
        if let accepted { return accepted }
        if let lastRejection { throw lastRejection }
        let waited = Duration.nanoseconds(timeBase.monotonicNow().nanoseconds - started.nanoseconds)
        throw NTPClientError(.timeout, "from \(address.endpoint) within \(waited.readable)")
    }

    /// A request just written, and the write's outcome.
    struct SentRequest: Sendable {
        var request: NTPClientRequest
        var written: EventLoopFuture<Void>
    }

    /// Stamps t1 and writes the request; call on the channel's event loop.
    private static func send(on channel: any Channel, to address: SocketAddress, timeBase: any TimeBase) -> SentRequest {
        var generator = SystemRandomNumberGenerator()
        let request = NTPClientRequest(
            wallTime: timeBase.wallNow(), monotonicTime: timeBase.monotonicNow(), using: &generator)
        let promise: EventLoopPromise<Void> = channel.eventLoop.makePromise(of: Void.self)
        let data = ByteBuffer(bytes: request.packet.encoded())
        channel.writeAndFlush(AddressedEnvelope(remoteAddress: address, data: data), promise: promise)
        return SentRequest(request: request, written: promise.futureResult)
    }

    /// Whether a rejection means "not the reply to this request" (wait on) rather than a final answer.
    private static func isStray(_ error: NTPReplyError) -> Bool {
        switch error {
        case NTPReplyError.originMismatch, NTPReplyError.duplicate, NTPReplyError.malformedPacket: true
        default: false
        }
    }
}

extension Logger {
    /// The default logger of the NTP types: discards everything. Pass your own to see their logs.
    @usableFromInline static let ntpNoOp = Logger(label: "timesync.ntp", factory: { _ in SwiftLogNoOpLogHandler() })
}
