#if canImport(FoundationNetworking) || canImport(Darwin)
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TimeSync
import TimeSyncWire

extension URLSession {
    /// Measures one server's clock over this session: what `timesync query http(s)://` does, with no
    /// SwiftNIO.
    ///
    /// The first `GET` opens the connection. When its response carries `TimeSync-Time` (and the
    /// preference allows it), it is discarded and `samples` more are sent over the warm connection.
    /// Otherwise the `Date` header is used with sub-second refinement (the core's
    /// `DateRefinementPlan`): the first response is one of the samples, and each further request is
    /// timed so that the server's second boundary falls inside it. The samples are combined by
    /// `HTTPTimeMeasurement.init(source:scheme:samples:requests:rejected:configuration:)`: a strict
    /// majority must agree.
    ///
    /// - Parameters:
    ///   - url: An absolute `http` or `https` URL (a small, uncached response is best).
    ///   - samples: How many samples to take, 1 to 64.
    ///   - preference: Which header to use; `.preferTimeHeader` by default.
    ///   - timeout: How long one request may take, connection, head and body together.
    ///   - timeBase: The clocks the samples are taken on.
    /// - Returns: The samples and their combined bounds.
    /// - Throws: `HTTPTimeError.invalidArgument` for a URL that is not absolute http(s) or samples
    ///   out of range; `HTTPTimeError.retryLater` as soon as a response is a `429` or `503` (no
    ///   further request is sent); `HTTPTimeError.timeout` when a request takes longer than
    ///   `timeout`; the first request's `URLError` (refused, DNS, TLS); the observer's
    ///   `HTTPTimeError` when no response is usable; `HTTPTimeError.inconsistentSamples` when
    ///   they contradict each other; `CancellationError`.
    package func timeMeasurement(
        of url: URL, samples: Int = 4, preference: HTTPTimeScheme.Preference = .preferTimeHeader,
        timeout: Duration = .seconds(2), timeBase: any TimeBase
    ) async throws -> HTTPTimeMeasurement {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", let host = url.host, !host.isEmpty,
            !HostPort.hasControlCharacter(host)
        else {
            throw HTTPTimeError.invalidArgument.withDetail("'\(url.absoluteString)' is not an absolute http(s) URL")
        }
        guard (1...64).contains(samples) else {
            throw HTTPTimeError.invalidArgument.withDetail("samples \(samples): give 1 to 64")
        }
        guard timeout > .zero else { throw HTTPTimeError.invalidArgument.withDetail("the timeout must be more than 0") }
        let source = HostPort.format(host: host, port: url.port)
        let observer = HTTPTimeObserver(source: source, policy: preference, timeBase: timeBase)
        let warm = try await exchange(url, observer: observer, timeout: timeout)
        if case .failure(let error) = warm.observation, error.code == .retryLater { throw error }
        if preference == .dateOnly || (!warm.hasTimeHeader && preference == .preferTimeHeader) {
            // Without `TimeSync-Time` the first response's sample (if any) came from `Date`.
            let dates = HTTPTimeObserver(source: source, policy: .dateOnly, timeBase: timeBase)
            let seed = try? warm.observation.get()
            return try await refineDate(
                url, observer: dates, seed: seed?.sample, maxRequests: seed == nil ? samples + 1 : samples, timeout: timeout)
        }
        var accepted: [OffsetSample] = []
        var rejected = 0
        var lastError: any Error = HTTPTimeError.noUsableSamples
        for _ in 0..<samples {
            do {
                switch try await exchange(url, observer: observer, timeout: timeout).observation {
                case .success(let observation): accepted.append(observation.sample)
                case .failure(let error):
                    if error.code == .retryLater { throw error }
                    rejected += 1
                    lastError = error
                }
            } catch let error as HTTPTimeError where error.code == .retryLater {
                throw error
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                // One lost request does not end a measurement.
                rejected += 1
                lastError = error
            }
        }
        guard !accepted.isEmpty else { throw lastError }
        return try HTTPTimeMeasurement(source: source, scheme: .timeHeader, samples: accepted, requests: samples + 1, rejected: rejected)
    }

    /// One timed request (`GET` unless `method` says otherwise): the sample or why the response was
    /// rejected (a `429` or `503` as `HTTPTimeError.retryLater`), and whether it carried
    /// `TimeSync-Time`.
    private func exchange(_ url: URL, method: String = "GET", observer: HTTPTimeObserver, timeout: Duration) async throws -> TimedExchange {
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.setValue("no-cache", forHTTPHeaderField: "Cache-Control")
        let (_, response, observation) = try await timeSyncData(for: request, observer: observer, within: timeout)
        let headers = response.headerPairs
        let hasTimeHeader = headers.contains { $0.name.caseInsensitiveCompare(HTTPTimeHeader.name) == .orderedSame }
        if let retryLater = HTTPTimeError.retryLater(status: response.statusCode, headers: headers, wallNow: observer.timeBase.wallNow()) {
            let detail = observer.source + (retryLater.detail.map { ": \($0)" } ?? "")
            return TimedExchange(observation: .failure(retryLater.withDetail(detail)), hasTimeHeader: hasTimeHeader)
        }
        return TimedExchange(observation: observation, hasTimeHeader: hasTimeHeader)
    }

    /// A `DateRefinementPlan` on one server's `Date`, executed until it finishes.
    private func refineDate(
        _ url: URL, observer: HTTPTimeObserver, seed: OffsetSample?, maxRequests: Int, timeout: Duration
    ) async throws -> HTTPTimeMeasurement {
        let plan = try await refineDate(
            url, method: "GET", observer: observer, seed: seed, maxRequests: maxRequests, requestsUsed: 1, requestTimeout: { _ in timeout })
        return try HTTPTimeMeasurement(
            source: observer.source, scheme: .date, samples: plan.samples, requests: plan.requests, rejected: plan.rejected)
    }

    /// Executes a `DateRefinementPlan` on one server: each request sent when the plan says, a failed
    /// one counted and the plan going on, until the plan finishes or `requestTimeout` gives no time
    /// for another request.
    /// - Parameters:
    ///   - requestTimeout: The time the next request may take, given now; `nil` ends the plan.
    /// - Returns: The finished plan, with at least one sample.
    /// - Throws: `HTTPTimeError.retryLater` at once for a `429` or `503`,
    ///   `HTTPTimeError.inconsistentSamples` when the server contradicts itself, the last failure
    ///   when no request gave a sample, `CancellationError`.
    func refineDate(
        _ url: URL, method: String, observer: HTTPTimeObserver, seed: OffsetSample?, maxRequests: Int, requestsUsed: Int,
        requestTimeout: (MonotonicInstant) -> Duration?
    ) async throws -> DateRefinementPlan {
        let timeBase = observer.timeBase
        var plan: DateRefinementPlan
        do {
            plan = try DateRefinementPlan(sourceCount: 1, maxRequests: maxRequests, requestsUsed: requestsUsed, seed: seed.map { (0, $0) })
        } catch {
            throw HTTPTimeError.invalidArgument.withDetail(error.description)
        }
        var lastError: any Error = HTTPTimeError.noUsableSamples
        while case .send(_, let instant) = plan.nextAction(at: timeBase.monotonicNow()), requestTimeout(max(instant, timeBase.monotonicNow())) != nil {
            if instant > timeBase.monotonicNow() { try await timeBase.sleep(until: instant) }
            guard let timeout = requestTimeout(timeBase.monotonicNow()) else { break }
            do {
                switch try await exchange(url, method: method, observer: observer, timeout: timeout).observation {
                case .success(let observation):
                    do {
                        try plan.handle(observation.sample, from: 0)
                    } catch {
                        throw HTTPTimeError.inconsistentSamples.withDetail("\(observer.source): \(error)")
                    }
                case .failure(let error):
                    if error.code == .retryLater { throw error }
                    plan.handleFailure(from: 0)
                    lastError = error
                }
            } catch let error as HTTPTimeError where error.code == .retryLater || error.code == .inconsistentSamples {
                throw error
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                plan.handleFailure(from: 0)
                lastError = error
            }
        }
        guard !plan.samples.isEmpty else { throw lastError }
        return plan
    }
}

/// A response's sample (or why it has none) and whether it carried `TimeSync-Time`.
private struct TimedExchange {
    var observation: Result<HTTPTimeObservation, HTTPTimeError>
    var hasTimeHeader: Bool
}
#endif
