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

    /// Queries a server like `sntp`: resolves the name, then exchanges `samples` requests with the
    /// first address that answers, `interval` apart, and combines them with `SampleConsensus`: the
    /// largest set of samples that agree, when it is a strict majority, so one lying reply can
    /// neither win nor spoil the answer.
    /// - Parameters:
    ///   - host: Host name or IP literal.
    ///   - port: UDP port (default 123).
    ///   - timeout: The deadline of each exchange (default 5 s).
    ///   - samples: How many exchanges (at least 1; default 1).
    ///   - interval: The spacing of the exchanges (default 250 ms).
    ///   - conflictWindow: How long each exchange listens after its first reply for a conflicting one
    ///     (default: max(round trip, 20 ms)).
    /// - Returns: The combined result.
    /// - Throws: ``NTPClientError`` (`.unreachable` at once, `.timeout` saying how many requests went
    ///   unanswered in how long), `NTPReplyError` (the last rejection when no sample succeeded; a
    ///   Kiss-o'-Death at once, except `RATE` asking for at most 16 s, which the query waits out before
    ///   going on; `.conflictingReplies` at once: someone raced the server), `SampleConsensusError` when
    ///   the replies contradict each other; `CancellationError`.
    public func query(
        host: String, port: Int = NTPServerAddress.defaultPort, timeout: Duration = .seconds(5), samples: Int = 1,
        interval: Duration = .milliseconds(250), conflictWindow: ConflictWindow = .query
    ) async throws -> NTPQueryResult {
        let server = NTPServerAddress(host: host, port: port)
        return try await firstAnswering(server) { address in
            let exchanges = try await collect(
                server: server, address: address, source: NTPPoolSource.sourceName(server: server, address: address),
                timeout: timeout, samples: max(1, samples), interval: interval, conflictWindow: conflictWindow)
            let consensus = try SampleConsensus(exchanges.samples)
            // The server's fields (stratum, leap, …) come from the replies the majority agrees with.
            let agreeing = Set(consensus.samples)
            let kept = zip(exchanges.replies, exchanges.samples).filter { agreeing.contains($0.1) }.map(\.0)
            return NTPQueryResult(
                server: server, address: address, calibration: consensus.calibration, replies: kept,
                samples: consensus.samples, timeBase: timeBase)
        }
    }

    /// Measures a server for a synchronizer: resolves the name, then exchanges `samples` requests with
    /// the first address that answers, like ``query(host:port:timeout:samples:interval:conflictWindow:)``,
    /// and returns every validated sample as it is. Nothing is combined: the clock's estimator takes
    /// the samples (and holds any that contradicts the source's others as a suspect).
    /// - Parameters:
    ///   - server: The server's name or address and port.
    ///   - source: The source name the samples carry.
    ///   - timeout: The deadline of each exchange.
    ///   - samples: How many exchanges (at least 1; default 1).
    ///   - interval: The spacing of the exchanges (default 250 ms).
    ///   - conflictWindow: How long each exchange listens after its first reply for a conflicting one.
    /// - Returns: The samples, oldest first; at least one.
    /// - Throws: What ``query(host:port:timeout:samples:interval:conflictWindow:)`` throws, except
    ///   `SampleConsensusError`.
    func samples(
        of server: NTPServerAddress, source: String, timeout: Duration, samples: Int = 1,
        interval: Duration = .milliseconds(250), conflictWindow: ConflictWindow = .synchronizer
    ) async throws -> [OffsetSample] {
        try await firstAnswering(server) { address in
            try await collect(
                server: server, address: address, source: source, timeout: timeout, samples: max(1, samples),
                interval: interval, conflictWindow: conflictWindow
            ).samples
        }
    }

    /// Resolves the server's name and returns what `body` makes of the first address that answers.
    private func firstAnswering<Result>(
        _ server: NTPServerAddress, _ body: (SocketAddress) async throws -> Result
    ) async throws -> Result {
        let addresses = try await NTPResolver.resolve(host: server.host, port: server.port)
        var lastError: any Error = NTPClientError(.noAddresses, server.host)
        for address in addresses {
            do {
                return try await body(address)
            } catch let error as NTPReplyError where error == .kissOfDeath {
                throw error  // the server said no: do not try its other addresses
            } catch let error as SampleConsensusError {
                throw error  // the server answered, inconsistently: that is the finding
            } catch let error as NTPReplyError where error == .conflictingReplies {
                throw error  // someone raced the server: that is the finding
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                logger.debug("NTP address failed", metadata: ["server": .string("\(address.endpoint)"), "error": .string("\(error)")])
                lastError = error
            }
        }
        throw lastError
    }

    /// The longest a one-shot query waits to honour a `RATE` kiss: 16 s. A server asking for more
    /// ends the query with the kiss.
    static let maximumRateWait: Duration = .seconds(16)

    /// The interval a `RATE` kiss asks for (2^poll s, at least one second), when it is one and within
    /// `maximum`.
    static func rateWait(_ kiss: NTPReplyError, maximum: Duration) -> Duration? {
        guard kiss == .kissOfDeath, kiss.kissCode == NTPReferenceID.rate else { return nil }
        let poll = min(max(Int(kiss.kissPoll ?? 0), 0), 17)
        let wait = Duration.seconds(1 << poll)
        return wait <= maximum ? wait : nil
    }

    /// Exchanges `samples` requests with one address, `interval` apart (a `RATE` kiss widening the
    /// spacing), and returns the replies and their samples.
    private func collect(
        server: NTPServerAddress, address: SocketAddress, source: String, timeout: Duration, samples: Int,
        interval: Duration, conflictWindow: ConflictWindow
    ) async throws -> (replies: [NTPReply], samples: [OffsetSample]) {
        let started = timeBase.monotonicNow()
        var replies: [NTPReply] = []
        var collected: [OffsetSample] = []
        var lastError: (any Error)?
        var timeouts = 0
        var exchanges = 0  // those that count toward `samples`: every one but a RATE kiss
        var kisses = 0
        var spacing = interval  // widened by a RATE kiss for the rest of the query
        var nextSend = started
        while exchanges < samples {
            if exchanges + kisses > 0 { try await timeBase.sleep(until: nextSend) }
            nextSend = timeBase.monotonicNow().advanced(by: spacing)
            do {
                let reply = try await exchange(with: address, timeout: timeout, conflictWindow: conflictWindow)
                exchanges += 1
                collected.append(try reply.sample(source: source))
                replies.append(reply)
            } catch let error as NTPReplyError where error == .kissOfDeath {
                // RATE: keep the interval the server asks for from now on (only for a wait a one-shot
                // query can afford); DENY, RSTR and the rest end the query.
                guard let wait = Self.rateWait(error, maximum: Self.maximumRateWait), kisses < samples else { throw error }
                kisses += 1
                spacing = max(spacing, wait + wait / 10)  // a margin over the limit, not on its edge
                logger.info(
                    "NTP: Kiss-o'-Death RATE; slowing down", metadata: ["server": .string("\(address.endpoint)"), "wait": .string("\(wait)")])
                nextSend = max(nextSend, timeBase.monotonicNow().advanced(by: wait))
            } catch let error as NTPReplyError where error == .conflictingReplies {
                throw error  // one raced exchange taints the query: report it, do not average it away
            } catch let error as NTPClientError where error == .unreachable {
                throw NTPClientError(.unreachable, "\(address.endpoint): port unreachable")
            } catch is CancellationError {
                throw CancellationError()
            } catch let error as NTPClientError where error == .timeout {
                exchanges += 1
                timeouts += 1
                lastError = error
            } catch {
                exchanges += 1
                lastError = error
            }
        }
        guard !collected.isEmpty else {
            if timeouts == samples {
                let waited = Duration.nanoseconds(timeBase.monotonicNow().nanoseconds - started.nanoseconds)
                throw NTPClientError(
                    .timeout, "from \(address.endpoint): \(samples) request\(samples == 1 ? "" : "s") unanswered in \(waited.readable)")
            }
            throw lastError ?? NTPClientError(.timeout, "\(address.endpoint)")
        }
        return (replies, collected)
    }
}

extension Logger {
    /// The default logger of the NTP types: discards everything. Pass your own to see their logs.
    @usableFromInline static let ntpNoOp = Logger(label: "timesync.ntp", factory: { _ in SwiftLogNoOpLogHandler() })
}
