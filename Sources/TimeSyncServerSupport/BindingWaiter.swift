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

    /// A failed bind: the error becomes a `ServerBindError` when it is one it names (in use, not
    /// local, no permission), is told to whoever waits for the address, and is returned to throw.
    /// - Parameters:
    ///   - error: What the bind threw.
    ///   - transport: `UDP` or `TCP`, for the message.
    ///   - host: The address asked for.
    ///   - port: The port asked for.
    package func bindFailed(_ error: any Error, transport: String, host: String, port: Int) -> any Error {
        var failure = error
        if let error = error as? IOError, let bindError = ServerBindError(errno: error.errnoCode, transport: transport, host: host, port: port) {
            failure = bindError
        }
        fail(failure)
        return failure
    }
}
#endif
