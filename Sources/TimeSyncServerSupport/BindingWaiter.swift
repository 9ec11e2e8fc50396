#if NTPServer || NTS || RoughtimeServer
import NIOCore
import TimeSync

/// Lets callers wait for a server's bound address: what every server's `boundAddress` returns.
package final class BindingWaiter: Sendable {
    private let result = Locked<Result<SocketAddress, any Error>?>(nil)
    private let waiters = Waiters()

    package init() {}

    package func succeed(_ address: SocketAddress) { complete(.success(address)) }
    package func fail(_ error: any Error) { complete(.failure(error)) }

    private func complete(_ outcome: Result<SocketAddress, any Error>) {
        result.withLock { $0 = outcome }
        waiters.wakeAll()
    }

    package func wait() async throws -> SocketAddress {
        try await waiters.wait { result.withLock { $0 } }.get()
    }
}
#endif
