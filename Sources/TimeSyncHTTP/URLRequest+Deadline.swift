#if canImport(FoundationNetworking) || canImport(Darwin)
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TimeSync

extension URLRequest {
    /// The timeout URLSession takes for a wait of `seconds`. swift-corelibs-foundation (Linux) counts
    /// a request's timeout in whole seconds, cut down: under a second it gives up at once. There the
    /// timeout is rounded up, and ``withDeadline(_:timeBase:_:)`` holds the exact deadline.
    static func sessionTimeout(_ seconds: Double) -> TimeInterval {
        #if canImport(Darwin)
        return max(0.001, seconds)
        #else
        return max(1, seconds.rounded(.up))
        #endif
    }
}

/// Runs `body` (a URLSession load) until `deadline` on the time base's monotonic clock, then cancels
/// it and throws `URLError(.timedOut)`.
func withDeadline<Value: Sendable>(
    _ deadline: MonotonicInstant, timeBase: any TimeBase, _ body: @escaping @Sendable () async throws -> Value
) async throws -> Value {
    try await withThrowingTaskGroup(of: Value?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await timeBase.sleep(until: deadline)
            return nil
        }
        defer { group.cancelAll() }
        guard let value = try await group.next() ?? nil else { throw URLError(.timedOut) }
        return value
    }
}
#endif
