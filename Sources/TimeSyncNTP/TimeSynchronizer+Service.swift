#if ServiceLifecycle
import ServiceLifecycle
import TimeSync

/// With the package's `ServiceLifecycle` trait, a synchronizer is a `Service` for servers: it polls
/// from `run()` until graceful shutdown or cancellation, then stops and writes its store.
extension TimeSynchronizer: Service {
    public func run() async throws {
        start()
        await cancelWhenGracefulShutdown {
            // Waits until cancelled: a stream that never yields ends its iteration on cancellation.
            let (never, _) = AsyncStream.makeStream(of: Never.self)
            for await _ in never {}
        }
        await stop()
    }
}
#endif
