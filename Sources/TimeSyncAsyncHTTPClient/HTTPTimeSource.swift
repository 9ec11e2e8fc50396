#if AsyncHTTPClient
import AsyncHTTPClient
import Foundation
import Logging
import NIOPosix
import TimeSync
import TimeSyncWire
import TimeSyncHTTP

/// An active HTTP time source on AsyncHTTPClient: sends `GET` requests to one endpoint and turns
/// each response into a sample.
///
/// ``measure(samples:)`` sends one request to open (and warm) the connection, discards it, then
/// takes the requested number of samples over the same kept-alive connection. When the server sends
/// no `TimeSync-Time` header (or the policy is `HTTPTimeScheme.Preference.dateOnly`) it falls back to
/// the `Date` header with sub-second refinement (`HTTPDateCalibrator`). Once the server has
/// answered with `TimeSync-Time`, a response without it is refused
/// (`HTTPTimeError.timeHeaderWithdrawn`): a cache or a replay does not step the source down to `Date`.
package struct HTTPTimeSource: Sendable {
    /// The endpoint.
    package let url: String
    /// The source name of its samples: `host[:port]`.
    package let source: String
    /// Which headers to use.
    package var policy: HTTPTimeScheme.Preference
    /// The deadline of one request's whole exchange (connection, head and body).
    package var timeout: Duration
    /// Which time the server tells, for a `TimeSynchronizer`: UTC by default (a package server's
    /// `Date`, or your server kept on UTC by NTP); `.service(name)` when your server's own clock is
    /// the reference, whatever UTC says.
    package var reference: TimeReference = .utc
    let client: HTTPClient
    let timeBase: any TimeBase
    let makeNonce: @Sendable () -> String
    let logger: Logger
    /// The deadline of a whole measurement (a synchronizer's poll), when there is one: each request
    /// gets at most what is left of it, and none is sent once it has passed.
    var measurementDeadline: Deadline?
    /// Whether the server answered with `TimeSync-Time`: then a response without it is refused.
    let schemeFloor = HTTPSchemeFloor()

    /// Creates a source.
    /// - Parameters:
    ///   - url: An absolute `http` or `https` URL.
    ///   - client: The HTTP client (its connection pool provides the warm connection). Redirects are
    ///     best turned off: a redirected request spans two exchanges, which widens its bounds.
    ///   - policy: Which headers to use.
    ///   - timeBase: The clocks; the monotonic clock stamps send and receive.
    ///   - timeout: The limit for one request.
    ///   - nonce: Makes the nonce of each request (seeded in tests).
    ///   - logger: Where to log rejected responses (by default nowhere).
    /// - Throws: `HTTPTimeError.invalidURL` for anything but an absolute http(s) URL with a host.
    package init(
        url: String, client: HTTPClient = .shared, policy: HTTPTimeScheme.Preference = .preferTimeHeader,
        timeBase: any TimeBase, timeout: Duration = .seconds(5),
        nonce: @escaping @Sendable () -> String = { HTTPTimeNonce.random() },
        logger: Logger = Logger(label: "timesync.http", factory: { _ in SwiftLogNoOpLogHandler() })
    ) throws(HTTPTimeError) {
        guard let source = Self.sourceName(url) else { throw HTTPTimeError.invalidURL.withDetail(url) }
        self.url = url
        self.source = source
        self.client = client
        self.policy = policy
        self.timeBase = timeBase
        self.timeout = timeout
        self.makeNonce = nonce
        self.logger = logger
    }

    /// `host[:port]` of an absolute http(s) URL, or `nil`.
    static func sourceName(_ url: String) -> String? {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty, !HostPort.hasControlCharacter(host)
        else { return nil }
        return HostPort.format(host: host, port: components.port)
    }

    /// The outcome of one request.
    package struct Exchange: Sendable {
        /// The sample, or why the response was rejected.
        package var result: Result<HTTPTimeObservation, HTTPTimeError>
        /// Whether the response carried a `TimeSync-Time` header.
        package var hasTimeHeader: Bool
        /// The response's status code.
        package var status: Int
    }

    /// Sends one request and observes its response.
    ///
    /// One deadline, ``timeout`` from the call, covers the whole exchange: connecting, the head and
    /// the body (drained so the connection can serve the next request). A server that sends its head
    /// and then stalls the body fails with `HTTPTimeError.timeout` like one that never answers.
    /// - Parameter policy: Which headers to use for this request (the source's by default).
    /// - Returns: The sample or the reason it was rejected: `HTTPTimeError.retryLater` (with the
    ///   status and the `Retry-After` wait) for a `429` or `503`, whatever time it carries.
    /// - Throws: `HTTPTimeError.timeout` (saying how long was waited and whether the head had
    ///   arrived), ``HTTPTransportError`` when the connection fails (a refused connection fails at
    ///   once), other errors of AsyncHTTPClient, `CancellationError`.
    package func exchange(policy: HTTPTimeScheme.Preference? = nil) async throws -> Exchange {
        let policy = policy ?? self.policy
        var builder = HTTPClientRequest(url: url)
        builder.method = .GET
        builder.headers.add(name: "Cache-Control", value: "no-cache")
        let nonce = policy == .dateOnly ? nil : makeNonce()
        if let nonce { builder.headers.add(name: HTTPTimeHeader.nonceName, value: HTTPTimeNonce.fieldValue(nonce)) }
        let request = builder
        let started = timeBase.monotonicNow()
        let requestDeadline = measurementDeadline?.capping(timeout, from: started) ?? Deadline(after: timeout, from: started)
        let limit = requestDeadline.remaining(at: started).nanosecondsClamped
        guard limit > 0 else {
            throw HTTPTimeError.timeout.withDetail("\(source): the measurement's deadline passed before this request could be sent")
        }
        let deadline = requestDeadline.instant
        let progress = ExchangeProgress()
        let (head, requestSent, responseReceived) = try await withTransportErrors { try await withThrowingTaskGroup(
            of: (HTTPClientResponse, MonotonicInstant, MonotonicInstant)?.self
        ) { group in
            group.addTask {
                let requestSent = timeBase.monotonicNow()
                let response = try await client.execute(request, timeout: .nanoseconds(limit), logger: logger)
                let responseReceived = timeBase.monotonicNow()
                progress.headArrived()
                // Drain the body so the connection goes back to the pool for the next sample.
                for try await _ in response.body {}
                return (response, requestSent, responseReceived)
            }
            group.addTask {
                try await timeBase.sleep(until: deadline)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let result = first else {
                let waited = Duration.nanoseconds(timeBase.monotonicNow().nanoseconds &- started.nanoseconds)
                throw HTTPTimeError.timeout.withDetail("\(source): \(progress.hasHead ? "the body did not complete" : "no response head") after \(waited.readable)")
            }
            return result
        } }
        let headers = head.headers
        let hasTimeHeader = head.headers.contains(name: HTTPTimeHeader.name)
        let status = Int(head.status.code)
        if let retryLater = HTTPTimeError.retryLater(status: status, headers: headers, wallNow: timeBase.wallNow()) {
            // The server asks for fewer requests: its time is not taken, and a measurement stops.
            logger.debug("server asks to retry later", metadata: ["source": "\(source)", "reason": "\(retryLater)"])
            let detail = source + (retryLater.detail.map { ": \($0)" } ?? "")
            return Exchange(result: .failure(retryLater.withDetail(detail)), hasTimeHeader: hasTimeHeader, status: status)
        }
        let observer = HTTPTimeObserver(source: source, policy: policy, timeBase: timeBase)
        let result: Result<HTTPTimeObservation, HTTPTimeError>
        do {
            result = .success(
                try observer.observe(
                    status: status, headers: headers, requestSent: requestSent, responseReceived: responseReceived,
                    nonce: nonce))
        } catch {
            logger.debug("rejected response", metadata: ["source": "\(source)", "reason": "\(error)"])
            result = .failure(error)
        }
        return Exchange(result: result, hasTimeHeader: hasTimeHeader, status: status)
    }

    /// Runs `body`, turning what AsyncHTTPClient and SwiftNIO throw about the connection into an
    /// ``HTTPTransportError``; `HTTPTimeError`, `CancellationError` and anything else pass through.
    private func withTransportErrors<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as HTTPTimeError {
            throw error
        } catch let error as CancellationError {
            throw error
        } catch {
            throw HTTPTransportError.classifying(error, server: source) ?? error
        }
    }

    /// Measures the server: one connection-opening request, then further requests over the warm
    /// connection, for at most `samples` samples in at most `samples + 1` requests, as
    /// `HTTPMeasurement` decides.
    ///
    /// Uses `TimeSync-Time` when the server sends it (unless the policy is `dateOnly`): the opening
    /// request is discarded and `samples` more are sent. Otherwise it uses the `Date` header with
    /// sub-second refinement: the opening request's `Date` is the first sample (a one-second header
    /// loses nothing to the connection's opening), and the refinement sends the rest.
    /// - Parameter samples: How many samples to take (at least 1).
    /// - Returns: The samples and their combined bounds.
    /// - Throws: `HTTPTimeError.retryLater` as soon as a response is a `429` or `503` (no further
    ///   request is sent); `HTTPTimeError` when no response is usable or samples contradict each
    ///   other; transport errors of the first request, or of the last one when every request failed;
    ///   `CancellationError`.
    package func measure(samples: Int) async throws -> HTTPTimeMeasurement {
        let taken = try await collect(samples: samples)
        return try HTTPTimeMeasurement(
            source: source, scheme: taken.scheme, samples: taken.samples, requests: taken.requests, rejected: taken.rejected)
    }

    /// Takes the samples of one measurement (see ``measure(samples:)``) without combining them.
    /// - Throws: What ``measure(samples:)`` throws, except for samples that contradict each other;
    ///   `HTTPTimeError.timeHeaderWithdrawn` when a server that answered with `TimeSync-Time` before
    ///   now answers with `Date` only.
    func collect(samples: Int) async throws -> HTTPMeasurement.Result {
        guard samples >= 1 else { throw HTTPTimeError.invalidArgument.withDetail("samples must be at least 1") }
        var measurement = try HTTPMeasurement(
            .init(sources: [source], samples: samples, preference: policy, warmUp: true, requestTimeout: timeout), deadline: measurementDeadline)
        let taken = try await Self.run(&measurement, on: [self])
        if policy == .preferTimeHeader {
            // A server that answered with `TimeSync-Time` is not followed down to `Date`.
            try schemeFloor.check(taken.scheme == .timeHeader ? .timeHeader : .date, among: [.timeHeader, .date], source: source)
        }
        return taken
    }

    /// Executes an `HTTPMeasurement` over `sources` (the measurement's sources, in its order:
    /// `HTTPMeasurement.run`).
    /// - Returns: What the measurement took.
    /// - Throws: The measurement's verdict (see `HTTPMeasurement`), `CancellationError`.
    static func run(_ measurement: inout HTTPMeasurement, on sources: [HTTPTimeSource]) async throws -> HTTPMeasurement.Result {
        try await measurement.run(on: sources[0].timeBase) { index, preference, deadline in
            var source = sources[index]
            source.measurementDeadline = deadline
            do {
                let exchange = try await source.exchange(policy: preference)
                switch exchange.result {
                case .success(let observation): return .sample(observation.sample, hasTimeHeader: exchange.hasTimeHeader)
                case .failure(let error): return .rejected(error, hasTimeHeader: exchange.hasTimeHeader)
                }
            } catch {
                source.logger.debug("request failed", metadata: ["source": "\(source.source)", "error": "\(error)"])
                throw error
            }
        }
    }
}

/// Whether an exchange's response head has arrived, for its timeout message.
private final class ExchangeProgress: Sendable {
    private let head = Locked(false)
    func headArrived() { head.withLock { $0 = true } }
    var hasHead: Bool { head.withLock { $0 } }
}

extension HTTPTimeSource {
    /// An HTTP client suited to time measurement: redirects are not followed (a redirected request
    /// spans two exchanges), a refused connection fails the request at once instead of being retried
    /// until the deadline, and SwiftNIO's shared POSIX event loop group is used on every platform.
    /// (On Apple platforms AsyncHTTPClient's default group is Network.framework's, which waits for
    /// connectivity until the deadline on a refused port and reports errors ``HTTPTransportError``
    /// does not classify.) Shut it down when done.
    package static func makeClient() -> HTTPClient {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
    }
}
#endif
