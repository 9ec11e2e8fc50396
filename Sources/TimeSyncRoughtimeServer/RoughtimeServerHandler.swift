#if RoughtimeServer
import Logging
import NIOCore
import TimeSync
import TimeSyncServerSupport

/// The socket's mutable state, confined to its event loop.
struct RoughtimeServerState: Sendable {
    var responder: RoughtimeResponder
    let lifetime: Duration
    /// Per-address rate limits, judged as each datagram is read, before anything is signed.
    let limiter: AddressRateLimiter
    var statistics = RoughtimeServerStatistics()

    init(responder: RoughtimeResponder, lifetime: Duration, limiter: AddressRateLimiter = AddressRateLimiter(rate: .infinity, burst: 1, kissEvery: 0)) {
        self.responder = responder
        self.lifetime = lifetime
        self.limiter = limiter
        statistics.delegations = 1
    }

    /// Whether a request from `client` arriving at `arrival` is within its address's limit; one
    /// that is not is counted as received and dropped (`rateLimited`).
    mutating func admit(_ client: SocketAddress, at arrival: MonotonicInstant) -> Bool {
        guard case .admit = limiter.decide(NTPRateLimitKey(client), at: arrival) else {
            statistics.received += 1
            statistics.dropped[.rateLimited, default: 0] += 1
            return false
        }
        return true
    }

    /// Delegates a new online key if the current one's window is ending (or has not begun), then
    /// answers the batch, counting the outcomes.
    /// - Returns: The replies, and the new key's window when one was delegated.
    mutating func respond(to requests: [[UInt8]], now: UnixTime) -> (results: [Result<[UInt8], RoughtimeDropReason>], renewed: Result<ClosedRange<UInt64>, any Error>?) {
        var renewed: Result<ClosedRange<UInt64>, any Error>?
        do {
            if try responder.renewDelegation(now: now, lifetime: lifetime) {
                statistics.delegations += 1
                renewed = .success(responder.delegation.validity)
            }
        } catch {
            renewed = .failure(error)
        }
        let results = responder.respond(to: requests, now: now)
        statistics.received += requests.count
        var replied = 0
        for result in results {
            switch result {
            case .success: replied += 1
            case .failure(let reason): statistics.dropped[reason, default: 0] += 1
            }
        }
        statistics.replied += replied
        if replied > 0 { statistics.batches += 1 }
        return (results, renewed)
    }
}

/// Collects the datagrams of a read burst and answers them together; runs on the socket's event loop.
final class RoughtimeServerHandler: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    typealias OutboundOut = AddressedEnvelope<ByteBuffer>

    private let state: NIOLoopBoundBox<RoughtimeServerState>
    private let timeBase: any TimeBase
    private let batchSize: Int
    private let logger: Logger
    private var clients: [SocketAddress] = []
    private var requests: [[UInt8]] = []

    init(state: NIOLoopBoundBox<RoughtimeServerState>, timeBase: any TimeBase, batchSize: Int, logger: Logger) {
        self.state = state
        self.timeBase = timeBase
        self.batchSize = batchSize
        self.logger = logger
        clients.reserveCapacity(batchSize)
        requests.reserveCapacity(batchSize)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = unwrapInboundIn(data)
        // Before the request joins a batch: a client over its limit costs no signature.
        guard state.value.admit(envelope.remoteAddress, at: timeBase.monotonicNow()) else {
            logger.trace("Roughtime request dropped", metadata: ["client": .string("\(envelope.remoteAddress.endpoint)"), "reason": "rate limited"])
            return
        }
        clients.append(envelope.remoteAddress)
        requests.append(Array(envelope.data.readableBytesView))
        if requests.count >= batchSize { answer(context: context) }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        answer(context: context)
        context.flush()
    }

    /// Signs and writes the replies to the requests collected so far.
    private func answer(context: ChannelHandlerContext) {
        guard !requests.isEmpty else { return }
        let (results, renewed) = state.value.respond(to: requests, now: timeBase.wallNow())
        switch renewed {
        case .success(let validity)?:
            logger.info("Roughtime online key delegated", metadata: ["validity": .string("\(validity.lowerBound)...\(validity.upperBound)")])
        case .failure(let error)?:
            logger.error("Roughtime online key could not be delegated; replies outside the old key's window are dropped", metadata: ["error": .string("\(error)")])
        case nil: break
        }
        for (client, result) in zip(clients, results) {
            switch result {
            case .success(let reply):
                let buffer = context.channel.allocator.buffer(bytes: reply)
                context.write(wrapOutboundOut(AddressedEnvelope(remoteAddress: client, data: buffer)), promise: nil)
            case .failure(let reason):
                logger.trace("Roughtime request dropped", metadata: ["client": .string("\(client.endpoint)"), "reason": .string("\(reason)")])
            }
        }
        clients.removeAll(keepingCapacity: true)
        requests.removeAll(keepingCapacity: true)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A UDP socket surfaces ICMP errors from earlier sends here; the server keeps serving.
        logger.debug("Roughtime server socket error", metadata: ["error": .string("\(error)")])
    }
}
#endif
