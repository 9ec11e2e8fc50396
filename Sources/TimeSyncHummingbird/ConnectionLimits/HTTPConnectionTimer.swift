#if Hummingbird
import NIOCore

/// When one HTTP/1 connection must be closed for want of a request, sans I/O: the channel handlers
/// report what happened (bytes read, a request head or end decoded, a response finished) with the
/// instant, and ask for the ``deadline``. See ``HTTPConnectionLimits`` for the rules.
package struct HTTPConnectionTimer: Sendable, Hashable {
    /// Where the connection stands.
    package enum Phase: Sendable, Hashable {
        /// Waiting for a request head (none of it yet, or part of it): the header timeout runs.
        case awaitingHead
        /// At least one request is being answered: no timer.
        case answering
        /// Kept alive after a response, no byte of a next request yet: the idle timeout runs.
        case idle
    }

    /// How long a head may take.
    package let headerTimeout: TimeAmount
    /// How long a kept-alive connection may wait for its next request.
    package let idleTimeout: TimeAmount
    /// Where the connection stands.
    package private(set) var phase: Phase
    /// When the connection is to be closed unless something happens first; `nil` while answering.
    package private(set) var deadline: NIODeadline?
    /// Requests whose head arrived and whose response has not been finished.
    package private(set) var requestsOpen = 0
    /// Whether the last request's body is still arriving (its head came, its end did not).
    package private(set) var readingBody = false

    /// A connection that opened at `now`: its first head is due within the header timeout.
    package init(openedAt now: NIODeadline, limits: HTTPConnectionLimits) {
        headerTimeout = .nanoseconds(limits.headerTimeout.nanosecondsClamped)
        idleTimeout = .nanoseconds(limits.idleTimeout.nanosecondsClamped)
        phase = .awaitingHead
        deadline = now + headerTimeout
    }

    /// Whether the connection waits for a request (idle or awaiting a head): the connections a full
    /// server closes first.
    package var isWaiting: Bool { phase != .answering }

    /// Bytes arrived. On an idle connection they start the next request: its head is due within the
    /// header timeout. The rest of a request body still arriving after its response changes nothing.
    package mutating func bytesRead(at now: NIODeadline) {
        guard phase == .idle, !readingBody else { return }
        phase = .awaitingHead
        deadline = now + headerTimeout
    }

    /// A request head was decoded: the request is answered with no timer.
    package mutating func headRead() {
        requestsOpen += 1
        readingBody = true
        phase = .answering
        deadline = nil
    }

    /// A request's end was decoded.
    package mutating func endRead() {
        readingBody = false
    }

    /// A response was finished. With no other request open the connection goes idle.
    package mutating func responseFinished(at now: NIODeadline) {
        requestsOpen = max(0, requestsOpen - 1)
        guard requestsOpen == 0, phase == .answering else { return }
        phase = .idle
        deadline = now + idleTimeout
    }

    /// Whether the connection is to be closed at `now`.
    package func hasExpired(at now: NIODeadline) -> Bool {
        deadline.map { now >= $0 } ?? false
    }
}
#endif
