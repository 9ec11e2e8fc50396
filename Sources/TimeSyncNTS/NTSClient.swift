#if NTS
import NIOConcurrencyHelpers
import TimeSync
import TimeSyncWire
import TimeSyncNTP
import TimeSyncSockets

/// An NTS client for one server (RFC 8915): a key exchange over TLS when it has no usable keys, then
/// NTP exchanges authenticated with them, each spending one cookie and bringing new ones.
///
/// A new key exchange is made when the cookies run out, after an NTS NAK, and when the keys are older
/// than ``Configuration/maximumKeyAge``. A reply is used only if it is authenticated with the
/// server-to-client key and echoes the request's Unique Identifier: anything else (altered, replayed,
/// stripped, forged) is dropped, counted in ``statistics``, and the wait for the genuine reply goes
/// on within the deadline. Exchanges run one at a time; the client is safe to share.
@available(watchOS, unavailable, message: "watchOS apps cannot use BSD sockets (Apple TN3135): use TimeSynchronizer.https() or TimeSource.https(_:)")
public final class NTSClient: Sendable {
    /// The settings of a client.
    public struct Configuration: Sendable {
        /// Whom to trust for the key-exchange server's certificate (default: the system's trust store).
        public var trust: NTSKeyExchange.Trust
        /// The oldest keys used; a key exchange renews them (default one day).
        public var maximumKeyAge: Duration
        /// The limits replies must meet.
        public var limits: NTPReplyLimits
        /// Which addresses an NTP server named by the key-exchange server may resolve to (default:
        /// public ones only; an IP literal or `localhost` is always used).
        public var addressPolicy: AddressPolicy

        /// Creates settings.
        public init(
            trust: NTSKeyExchange.Trust = .system, maximumKeyAge: Duration = .seconds(86_400), limits: NTPReplyLimits = .init(),
            addressPolicy: AddressPolicy = .publicOnly
        ) {
            self.trust = trust
            self.maximumKeyAge = maximumKeyAge
            self.limits = limits
            self.addressPolicy = addressPolicy
        }
    }

    private struct State: Sendable {
        var association: NTSAssociation?
        var statistics = NTSClientStatistics()
    }

    /// The key-exchange server.
    public let keyExchange: NTSKeyExchange
    /// The settings.
    public let configuration: Configuration
    /// The clocks.
    public let timeBase: any TimeBase
    private let state = NIOLockedValueBox(State())
    private let exclusive = AsyncExclusion()

    /// A client of the NTS-KE server at `host:port`.
    public init(
        host: String, port: Int = NTSKeyExchange.defaultPort, timeBase: (any TimeBase)? = nil,
        configuration: Configuration = Configuration()
    ) {
        let timeBase = timeBase ?? SystemTimeBase()
        self.keyExchange = NTSKeyExchange(host: host, port: port, trust: configuration.trust)
        self.configuration = configuration
        self.timeBase = timeBase
    }

    /// What the client has done so far.
    public var statistics: NTSClientStatistics {
        state.withLockedValue { state in
            var statistics = state.statistics
            statistics.cookies = state.association?.cookies.count ?? 0
            return statistics
        }
    }

    /// Forgets the keys and cookies: the next exchange starts with a key exchange.
    public func reset() {
        state.withLockedValue { $0.association = nil }
    }

    /// One authenticated exchange, with a key exchange first if the keys are spent, all within `timeout`.
    /// - Returns: The reply (validated and authenticated), the datagrams dropped on the way, and the
    ///   key exchange made, if any.
    /// - Throws: `NTSKEError` from a key exchange; `NTPClientError` (`.timeout`, `.unreachable`,
    ///   `.network`, DNS); `NTSReplyError` when only dropped datagrams came back before the deadline
    ///   (`.negativeAcknowledgment` if an NTS NAK was among them — the next exchange then makes a new
    ///   key exchange — else the last one's reason: `.authenticationFailed`, `.unauthenticated`, …) or the
    ///   authenticated reply failed NTP's checks (wrapped: Kiss-o'-Death, unsynchronized, …);
    ///   `CancellationError`.
    public func exchange(timeout: Duration) async throws -> NTSExchange {
        try await exchanges(until: .after(timeout, on: timeBase), series: .init())[0]
    }

    /// Authenticated exchanges as `series` asks (see `DatagramMeasurement`), with a key exchange
    /// first if the keys are spent, all by `deadline`: the wait for another exchange of this client to
    /// finish, the key exchange, the name's resolution and every request.
    /// - Returns: The answered exchanges, oldest first; the first carries the key exchange, if any.
    /// - Throws: What ``exchange(timeout:)`` throws.
    package func exchanges(until deadline: Deadline, series: DatagramMeasurement<NTSClientExchange>.Series) async throws -> [NTSExchange] {
        try await exclusive.run(until: deadline, on: timeBase) { try await self.exchangesAlone(until: deadline, series: series) }
    }

    private func exchangesAlone(until deadline: Deadline, series: DatagramMeasurement<NTSClientExchange>.Series) async throws -> [NTSExchange] {
        var madeKeyExchange: NTSKeyExchange.Result?
        var association = state.withLockedValue { $0.association }
        if association?.isUsable(at: timeBase.monotonicNow(), maximumAge: configuration.maximumKeyAge) != true {
            let result = try await keyExchange.perform(timeout: deadline.remaining(on: timeBase))
            madeKeyExchange = result
            association = NTSAssociation(
                response: result.response, keyExchangeHost: keyExchange.host,
                clientToServer: try AESSIVCMAC256(key: result.clientToServerKey),
                serverToClient: try AESSIVCMAC256(key: result.serverToClientKey), established: timeBase.monotonicNow())
            state.withLockedValue { state in
                state.statistics.keyExchanges += 1
                state.statistics.lastKeyExchangeDuration = result.duration
            }
        }
        guard let association else { throw NTSKEError(.noCookies) }
        let first = try NTSClientExchange(association: association, limits: configuration.limits, timeout: deadline.remaining(on: timeBase))
        // The cookie is spent whatever happens next: it is never sent twice.
        state.withLockedValue { $0.association = first.association }
        var measurement = DatagramMeasurement(
            host: association.host, port: Int(association.port), first: first, series: series, deadline: deadline,
            timedOut: { NTPClientError(.timeout, $0) })
        let result: Result<[DatagramMeasurement<NTSClientExchange>.Answered], any Error>
        do {
            result = .success(try await measurement.run(on: timeBase, addressPolicy: configuration.addressPolicy))
        } catch {
            result = .failure(error)
        }
        state.withLockedValue { state in
            // Keep the cookies the replies brought, or a NAK's verdict (unless the keys were reset meanwhile).
            if state.association != nil, let last = measurement.exchanges.last { state.association = last.association }
            state.statistics.requests += measurement.requests
            for exchange in measurement.exchanges {
                for dropped in exchange.dropped { state.statistics.dropped[dropped.reason, default: 0] += 1 }
            }
            if case .failure(let error as NTSReplyError) = result {
                // A refusal that ended the measurement is counted with the datagrams dropped on the way.
                if !error.isDroppedDatagram { state.statistics.dropped[error.reason, default: 0] += 1 }
                if error.code == .negativeAcknowledgment { state.statistics.negativeAcknowledgments += 1 }
            }
            if case .success(let answers) = result { state.statistics.authenticatedReplies += answers.count }
        }
        return try result.get().enumerated().map { index, answered in
            NTSExchange(
                reply: answered.answer, server: answered.address, dropped: answered.exchange.dropped,
                keyExchange: index == 0 ? madeKeyExchange : nil)
        }
    }
}

/// One NTS exchange's outcome.
public struct NTSExchange: Sendable {
    /// The authenticated reply.
    public var reply: NTPReply
    /// The address that answered.
    public var server: IPEndpoint
    /// Datagrams dropped while waiting for it (altered, forged, stray, NAKs), in arrival order.
    public var dropped: [NTSReplyError]
    /// The key exchange made first, if the keys were spent.
    public var keyExchange: NTSKeyExchange.Result?
}

/// What an ``NTSClient`` has done.
public struct NTSClientStatistics: Sendable, Hashable {
    /// Key exchanges made.
    public var keyExchanges = 0
    /// How long the last key exchange took.
    public var lastKeyExchangeDuration: Duration?
    /// NTP requests sent.
    public var requests = 0
    /// Authenticated replies used.
    public var authenticatedReplies = 0
    /// NTS NAKs that ended an exchange (the keys were then renewed).
    public var negativeAcknowledgments = 0
    /// Datagrams dropped, by reason (`authenticationFailed`, `unauthenticated`, `originMismatch`, …).
    public var dropped: [String: Int] = [:]
    /// Cookies in hand.
    public var cookies = 0

    /// All datagrams dropped.
    public var droppedTotal: Int { dropped.values.reduce(0, +) }
}

/// Runs bodies one at a time, in the order they asked.
final class AsyncExclusion: Sendable {
    private let busy = NIOLockedValueBox(false)
    private let waiters = Waiters()

    /// Runs `body` once no other body runs, waiting for its turn until `deadline` at most.
    /// - Throws: `NTPClientError.timeout` when the deadline passes first, what `body` throws.
    func run<Value: Sendable>(until deadline: Deadline, on timeBase: any TimeBase, _ body: @Sendable () async throws -> Value) async throws -> Value {
        let expired = NIOLockedValueBox(false)
        let timer = DeadlineTimer(at: deadline, on: timeBase) { [waiters] in
            expired.withLockedValue { $0 = true }
            waiters.wakeAll()
        }
        let turn: Bool
        do {
            turn = try await waiters.wait { () -> Bool? in
                busy.withLockedValue { busy in
                    if busy { return expired.withLockedValue { $0 } ? false : nil }
                    busy = true
                    return true
                }
            }
        } catch {
            timer.cancel()
            throw error
        }
        // The wait is over, with a turn or without: the timer is for the wait only.
        timer.cancel()
        guard turn else {
            throw NTPClientError(
                .timeout,
                "the deadline passed while another exchange of this client was out: give the measurement a longer timeout, or measure less often")
        }
        defer {
            busy.withLockedValue { $0 = false }
            waiters.wakeAll()
        }
        return try await body()
    }
}
#endif
