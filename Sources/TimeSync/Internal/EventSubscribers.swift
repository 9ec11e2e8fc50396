/// The subscribers of an event stream: each `stream(bufferingNewest:)` call gets every event emitted
/// after it, until it stops iterating or ``finish()``.
package final class EventSubscribers<Event: Sendable>: Sendable {
    private let continuations = Locked<(next: UInt64, byID: [UInt64: AsyncStream<Event>.Continuation])>((0, [:]))
    private let handlers = Locked<[@Sendable (Event) -> Void]>([])

    package init() {}

    /// A new subscriber's stream.
    package func stream(bufferingNewest limit: Int) -> AsyncStream<Event> {
        let (stream, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .bufferingNewest(max(1, limit)))
        let id = continuations.withLock { state in
            state.next += 1
            state.byID[state.next] = continuation
            return state.next
        }
        continuation.onTermination = { [weak self] _ in
            self?.continuations.withLock { _ = $0.byID.removeValue(forKey: id) }
        }
        return stream
    }

    /// Calls `handler` with every event emitted from now on, on the emitter's thread (it must be quick:
    /// another stream's `emit`).
    package func forward(_ handler: @escaping @Sendable (Event) -> Void) {
        handlers.withLock { $0.append(handler) }
    }

    /// Sends an event to every subscriber.
    package func emit(_ event: Event) {
        for handler in handlers.withLock({ $0 }) { handler(event) }
        for continuation in continuations.withLock({ Array($0.byID.values) }) { continuation.yield(event) }
    }

    /// Ends every subscriber's stream.
    package func finish() {
        let all = continuations.withLock { state in
            defer { state.byID = [:] }
            return Array(state.byID.values)
        }
        for continuation in all { continuation.finish() }
    }
}
