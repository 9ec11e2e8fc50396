#if canImport(FoundationNetworking) || canImport(Darwin)
import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TimeSync
import TimeSyncWire

/// One URLSession load within one deadline, for the time sources.
///
/// The deadline is held here, not by URLSession's `timeoutInterval`: swift-corelibs-foundation
/// (Linux) counts that in whole seconds, cut down, so under a second it gives up at once. And the load
/// is a completion-handler task cancelled from outside any task-cancellation handler: there,
/// cancelling URLSession's async `data(for:)` while its response completes can deadlock.
package enum URLSessionLoad {
    private enum Outcome: Sendable {
        case loaded(Data, URLResponse)
        case failed(any Error)
    }

    /// Loads `request` and returns its body and response, or throws `HTTPTimeError.timeout` once
    /// `deadline` has passed on `timeBase`'s monotonic clock (real time: time asleep counts) and
    /// cancels the load.
    /// - Throws: URLSession's errors, `HTTPTimeError.timeout` (saying whom it waited for, and how
    ///   long), `CancellationError`.
    package static func data(
        for request: URLRequest, session: URLSession, deadline: Deadline, timeBase: any TimeBase
    ) async throws -> (Data, URLResponse) {
        var request = request
        let seconds = max(0.001, deadline.remaining(on: timeBase).secondsValue)
        #if canImport(Darwin)
        request.timeoutInterval = seconds
        #else
        request.timeoutInterval = max(1, seconds.rounded(.up))
        #endif
        let started = timeBase.monotonicNow()
        let server = request.url?.host.map { HostPort.format(host: $0, port: request.url?.port) } ?? "the server"
        let outcome = Locked<Outcome?>(nil)
        let waiters = Waiters()
        @Sendable func finish(_ result: Outcome) {
            let first = outcome.withLock { outcome in
                defer { outcome = outcome ?? result }
                return outcome == nil
            }
            if first { waiters.wakeAll() }
        }
        let task = session.dataTask(with: request) { data, response, error in
            if error == nil, let response {
                finish(.loaded(data ?? Data(), response))
            } else {
                finish(.failed(error ?? URLError(.badServerResponse)))
            }
        }
        task.resume()
        // On the monotonic clock that counts time asleep: a load the device slept through has timed out.
        let timer = DeadlineTimer(at: deadline, on: timeBase) {
            let waited = started.duration(to: timeBase.monotonicNow())
            finish(.failed(HTTPTimeError.timeout.withDetail("\(server): no complete response within \(waited.readable), the measurement's deadline")))
            task.cancel()
        }
        defer { timer.cancel() }
        let result: Outcome
        do {
            result = try await waiters.wait { outcome.withLock { $0 } }
        } catch {
            task.cancel()
            throw error
        }
        switch result {
        case .loaded(let data, let response): return (data, response)
        case .failed(let error): throw error
        }
    }
}
#endif
