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

    /// One request and its reply, within one deadline for the whole exchange.
    ///
    /// The socket is connected to `address`, so datagrams from elsewhere never arrive and an ICMP
    /// port unreachable ends the exchange at once (``NTPClientError/unreachable``). A reply whose
    /// origin does not match, a duplicate or an undecodable datagram is ignored and the wait goes on;
    /// if the deadline passes after such a rejection, that rejection is thrown rather than a timeout.
    /// Any other rejection of a reply that answers our request (Kiss-o'-Death, unsynchronized, zero
    /// timestamps, …) ends the exchange.
    /// - Parameters:
    ///   - address: The server's address.
    ///   - timeout: The deadline for the whole exchange, from before the socket opens.
    /// - Returns: The validated reply, with t1 and t4 on the monotonic clock.
    /// - Throws: `NTPReplyError`, ``NTPClientError`` (`.timeout` with the time waited, `.unreachable`,
    ///   `.network`), `CancellationError`.
    public func exchange(with address: SocketAddress, timeout: Duration) async throws -> NTPReply {
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
        for try await datagram in socket.datagrams {
            let reply: NTPReply
            do {
                reply = try pending.accept(datagram.bytes, receivedAt: datagram.receivedAt, limits: limits)
            } catch {
                let rejection: NTPReplyError = error
                guard Self.isStray(rejection) else { throw rejection }
                logger.debug("NTP datagram ignored", metadata: ["server": .string("\(address.endpoint)"), "reason": .string("\(rejection)")])
                lastRejection = rejection
                continue
            }
            logger.debug("NTP reply", metadata: ["server": .string("\(address.endpoint)"), "stratum": .string("\(reply.packet.stratum)")])
            return reply
        }
        try Task.checkCancellation()
        if let lastRejection { throw lastRejection }
        let waited = Duration.nanoseconds(timeBase.monotonicNow().nanoseconds - started.nanoseconds)
        throw NTPClientError(.timeout, "from \(address.endpoint) within \(Self.seconds(waited))")
    }

    /// A duration as `1.234 s` for messages.
    static func seconds(_ duration: Duration) -> String {
        let milliseconds = duration.nanosecondsClamped / 1_000_000
        return "\(milliseconds / 1000).\(String(milliseconds % 1000 + 1000).dropFirst()) s"
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
    /// - Returns: The combined result.
    /// - Throws: ``NTPClientError`` (`.unreachable` at once, `.timeout` saying how many requests went
    ///   unanswered in how long), `NTPReplyError` (the last rejection when no sample succeeded; a
    ///   Kiss-o'-Death at once), `SampleConsensusError` when the replies contradict each other;
    ///   `CancellationError`.
    public func query(
        host: String, port: Int = NTPServerAddress.defaultPort, timeout: Duration = .seconds(5), samples: Int = 1,
        interval: Duration = .milliseconds(250)
    ) async throws -> NTPQueryResult {
        let server = NTPServerAddress(host: host, port: port)
        let addresses = try await NTPResolver.resolve(host: host, port: port)
        var lastError: any Error = NTPClientError(.noAddresses, host)
        for address in addresses {
            do {
                return try await query(server: server, address: address, timeout: timeout, samples: max(1, samples), interval: interval)
            } catch let error as NTPReplyError where error == .kissOfDeath {
                throw error  // the server said no: do not try its other addresses
            } catch let error as SampleConsensusError {
                throw error  // the server answered, inconsistently: that is the finding
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                logger.debug("NTP address failed", metadata: ["server": .string("\(address.endpoint)"), "error": .string("\(error)")])
                lastError = error
            }
        }
        throw lastError
    }

    private func query(
        server: NTPServerAddress, address: SocketAddress, timeout: Duration, samples: Int, interval: Duration
    ) async throws -> NTPQueryResult {
        let source = NTPPoolSource.sourceName(server: server, address: address)
        let started = timeBase.monotonicNow()
        var replies: [NTPReply] = []
        var collected: [OffsetSample] = []
        var lastError: (any Error)?
        var timeouts = 0
        for index in 0..<samples {
            if index > 0 { try await timeBase.sleep(until: timeBase.monotonicNow().advanced(by: interval)) }
            do {
                let reply = try await exchange(with: address, timeout: timeout)
                collected.append(try reply.sample(source: source))
                replies.append(reply)
            } catch let error as NTPReplyError where error == .kissOfDeath {
                throw error
            } catch let error as NTPClientError where error == .unreachable {
                throw NTPClientError(.unreachable, "\(address.endpoint): port unreachable")
            } catch is CancellationError {
                throw CancellationError()
            } catch let error as NTPClientError where error == .timeout {
                timeouts += 1
                lastError = error
            } catch {
                lastError = error
            }
        }
        guard !collected.isEmpty else {
            if timeouts == samples {
                let waited = Duration.nanoseconds(timeBase.monotonicNow().nanoseconds - started.nanoseconds)
                throw NTPClientError(
                    .timeout, "from \(address.endpoint): \(samples) request\(samples == 1 ? "" : "s") unanswered in \(Self.seconds(waited))")
            }
            throw lastError ?? NTPClientError(.timeout, "\(address.endpoint)")
        }
        let consensus = try SampleConsensus(collected)
        // The server's fields (stratum, leap, …) come from the replies the majority agrees with.
        let agreeing = Set(consensus.samples)
        let kept = zip(replies, collected).filter { agreeing.contains($0.1) }.map(\.0)
        return NTPQueryResult(
            server: server, address: address, calibration: consensus.calibration, replies: kept,
            samples: consensus.samples, timeBase: timeBase)
    }
}

extension Logger {
    /// The default logger of the NTP types: discards everything. Pass your own to see their logs.
    @usableFromInline static let ntpNoOp = Logger(label: "timesync.ntp", factory: { _ in SwiftLogNoOpLogHandler() })
}
