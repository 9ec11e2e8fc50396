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
    /// Otherwise the `Date` header is used with sub-second refinement (`DateRefinementPlan`): the
    /// first response is one of the samples, and each further request is timed so that the server's
    /// second boundary falls inside it. `HTTPMeasurement` decides all of it; this only sends. The samples are combined by
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
        var measurement = try HTTPMeasurement(
            .init(sources: [source], samples: samples, preference: preference, warmUp: true, requestTimeout: timeout))
        let taken = try await run(&measurement, url: url, method: "GET", source: source, timeBase: timeBase)
        return try HTTPTimeMeasurement(
            source: source, scheme: taken.scheme, samples: taken.samples, requests: taken.requests, rejected: taken.rejected)
    }

    /// Executes an `HTTPMeasurement` on one server over this session (`HTTPMeasurement.run`).
    /// - Returns: What the measurement took.
    /// - Throws: The measurement's verdict (see `HTTPMeasurement`), `CancellationError`.
    func run(
        _ measurement: inout HTTPMeasurement, url: URL, method: String, source: String, timeBase: any TimeBase
    ) async throws -> HTTPMeasurement.Result {
        try await measurement.run(on: timeBase) { _, preference, deadline in
            let observer = HTTPTimeObserver(source: source, policy: preference, timeBase: timeBase)
            let exchange = try await exchange(url, method: method, observer: observer, deadline: deadline)
            switch exchange.observation {
            case .success(let observation): return .sample(observation.sample, hasTimeHeader: exchange.hasTimeHeader)
            case .failure(let error): return .rejected(error, hasTimeHeader: exchange.hasTimeHeader)
            }
        }
    }

    /// One timed request (`GET` unless `method` says otherwise): the sample or why the response was
    /// rejected (a `429` or `503` as `HTTPTimeError.retryLater`), and whether it carried
    /// `TimeSync-Time`.
    private func exchange(_ url: URL, method: String = "GET", observer: HTTPTimeObserver, deadline: Deadline) async throws -> TimedExchange {
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.setValue("no-cache", forHTTPHeaderField: "Cache-Control")
        let (_, response, observation) = try await timeSyncData(for: request, observer: observer, until: deadline)
        let headers = response.headerPairs
        let hasTimeHeader = headers.contains { $0.name.caseInsensitiveCompare(HTTPTimeHeader.name) == .orderedSame }
        if let retryLater = HTTPTimeError.retryLater(status: response.statusCode, headers: headers, wallNow: observer.timeBase.wallNow()) {
            let detail = observer.source + (retryLater.detail.map { ": \($0)" } ?? "")
            return TimedExchange(observation: .failure(retryLater.withDetail(detail)), hasTimeHeader: hasTimeHeader)
        }
        return TimedExchange(observation: observation, hasTimeHeader: hasTimeHeader)
    }
}

/// A response's sample (or why it has none) and whether it carried `TimeSync-Time`.
private struct TimedExchange {
    var observation: Result<HTTPTimeObservation, HTTPTimeError>
    var hasTimeHeader: Bool
}
#endif
