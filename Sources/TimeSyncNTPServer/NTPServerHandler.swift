#if NTPServer
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Logging
import Metrics
import NIOCore
import NIOPosix
import ServiceLifecycle
import TimeSync
import TimeSyncWire
import TimeSyncServerSupport

/// One socket's mutable state, confined to its event loop. Counts go to the shared swift-metrics
/// counters once per read burst.
struct NTPServerState: Sendable {
    let configuration: NTPServerConfiguration
    let counters: NTPServerCounters
    let limiter: AddressRateLimiter
    let kernelClock: any KernelClock
    let authenticator: (any NTPRequestAuthenticator)?
    var statistics = NTPServerStatistics()
    /// Counted since the last ``flushCounters()``.
    private var pending = NTPServerStatistics()
    /// What replies advertise: the configuration's policy for the kernel's clock state, read again
    /// by ``refreshPolicy(at:)`` once ``policyExpiry`` has passed.
    private(set) var policy: NTPServerPolicy
    /// When ``policy`` is next read again; `nil` before the first datagram.
    private var policyExpiry: MonotonicInstant?
    /// How long a reading of the kernel's clock state is used: its maximum error grows by 500 µs a
    /// second, and a daemon updates it every few seconds at most, so a second stale is nothing.
    static let policyLifetime: Duration = .seconds(1)

    init(
        configuration: NTPServerConfiguration, counters: NTPServerCounters, limiter: AddressRateLimiter, kernelClock: any KernelClock,
        authenticator: (any NTPRequestAuthenticator)? = nil
    ) {
        self.configuration = configuration
        self.authenticator = authenticator
        self.counters = counters
        self.limiter = limiter
        self.kernelClock = kernelClock
        self.policy = configuration.policy
    }

    /// Reads the kernel's clock state again if the last reading is ``policyLifetime`` old (or there
    /// is none yet): one system call a second per socket at most, not one per datagram.
    mutating func refreshPolicy(at now: MonotonicInstant) {
        if let policyExpiry, now < policyExpiry { return }
        let clockState = configuration.policySource == .kernel ? kernelClock.clockState() : nil
        policy = configuration.advertisedPolicy(clockState: clockState)
        policyExpiry = now.advanced(by: Self.policyLifetime)
    }

    /// Judges one datagram by the core's request policy, writing the answer into `reply`; counts the outcome.
    mutating func respond(
        to bytes: UnsafeRawBufferPointer, into reply: UnsafeMutableRawBufferPointer, from client: SocketAddress, receivedAt: UnixTime,
        arrival: MonotonicInstant, timeBase: any TimeBase
    ) -> NTPServerAction {
        respond(to: bytes, into: reply, from: NTPRateLimitKey(client), receivedAt: receivedAt, arrival: arrival, timeBase: timeBase)
    }

    /// Judges one datagram from the client address `client`, writing the answer into `reply`; counts the outcome.
    mutating func respond(
        to bytes: UnsafeRawBufferPointer, into reply: UnsafeMutableRawBufferPointer, from client: NTPRateLimitKey, receivedAt: UnixTime,
        arrival: MonotonicInstant, timeBase: any TimeBase
    ) -> NTPServerAction {
        pending.received += 1
        refreshPolicy(at: arrival)
        let limiter = self.limiter
        let action = NTPServerResponder.respond(
            to: bytes, into: reply, policy: policy, receivedAt: receivedAt,
            admit: { limiter.decide(client, at: arrival) }, minimumPoll: limiter.minimumPoll,
            authenticator: authenticator, transmitAt: { timeBase.wallNow() })
        switch action {
        case .reply: pending.replied += 1
        case .authenticatedReply:
            pending.replied += 1
            pending.authenticatedReplies += 1
        case .negativeAcknowledgment: pending.negativeAcknowledgments += 1
        case .kiss: pending.kissesSent += 1
        case .drop(let reason): pending.dropped[reason, default: 0] += 1
        }
        return action
    }

    /// Counts a datagram dropped before the responder saw it (cut to its buffer: oversize).
    mutating func countDrop(_ reason: NTPServerDropReason) {
        pending.received += 1
        pending.dropped[reason, default: 0] += 1
    }

    /// Adds what was counted since the last flush to the statistics and the metrics.
    mutating func flushCounters() {
        guard pending.received > 0 else { return }  // every outcome counts a received datagram
        statistics.add(pending)
        counters.received.increment(by: pending.received)
        if pending.replied > 0 { counters.replied.increment(by: pending.replied) }
        if pending.kissesSent > 0 { counters.kisses.increment(by: pending.kissesSent) }
        for (reason, count) in pending.dropped { counters.dropped[reason]?.increment(by: count) }
        pending = NTPServerStatistics()
    }
}

/// Answers requests; runs on its socket's event loop.
final class NTPServerHandler: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    typealias OutboundOut = AddressedEnvelope<ByteBuffer>

    private let state: NIOLoopBoundBox<NTPServerState>
    private let timeBase: any TimeBase
    private let logger: Logger

    init(state: NIOLoopBoundBox<NTPServerState>, timeBase: any TimeBase, logger: Logger) {
        self.state = state
        self.timeBase = timeBase
        self.logger = logger
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let receivedAt = timeBase.wallNow()
        let arrival = timeBase.monotonicNow()
        let envelope = unwrapInboundIn(data)
        let timeBase = self.timeBase
        var buffer = context.channel.allocator.buffer(capacity: max(NTPPacket.headerSize, envelope.data.readableBytes))
        var outcome = NTPServerAction.drop(.malformed)
        envelope.data.withUnsafeReadableBytes { bytes -> Void in
            buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: max(NTPPacket.headerSize, bytes.count)) { reply in
                outcome = state.value.respond(
                    to: bytes, into: reply, from: envelope.remoteAddress, receivedAt: receivedAt, arrival: arrival, timeBase: timeBase)
                return outcome.length
            }
        }
        switch outcome {
        case .reply, .authenticatedReply:
            break
        case .negativeAcknowledgment:
            logger.debug("NTS cookie not usable: NTS NAK", metadata: ["client": .string("\(envelope.remoteAddress.endpoint)")])
        case .kiss:
            logger.debug("NTP client over its rate limit: RATE", metadata: ["client": .string("\(envelope.remoteAddress)")])
        case .drop(let reason):
            logger.trace("NTP request dropped", metadata: ["client": .string("\(envelope.remoteAddress.endpoint)"), "reason": .string("\(reason)")])
            return
        }
        context.write(wrapOutboundOut(AddressedEnvelope(remoteAddress: envelope.remoteAddress, data: buffer)), promise: nil)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        state.value.flushCounters()
        context.flush()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A UDP socket surfaces ICMP errors from earlier sends here; the server keeps serving.
        logger.debug("NTP server socket error", metadata: ["error": .string("\(error)")])
    }
}
#endif
