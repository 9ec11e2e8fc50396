#if canImport(FoundationNetworking) || canImport(Darwin)
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TimeSync
import TimeSyncWire

extension URLSession {
    /// Loads a request and records when it left and when its response arrived (the monotonic
    /// instants a sample needs), for APIs that return their time in the body.
    /// - Returns: The body, the response and the instants.
    package func timedData(for request: URLRequest, timeBase: any TimeBase) async throws -> (data: Data, response: URLResponse, instants: HTTPExchangeInstants) {
        var request = request
        request.cachePolicy = .reloadIgnoringLocalCacheData
        let requestSent = timeBase.monotonicNow()
        let (data, response) = try await self.data(for: request)
        let responseReceived = timeBase.monotonicNow()
        return (data, response, HTTPExchangeInstants(requestSent: requestSent, responseReceived: responseReceived))
    }

    /// Loads a request and calibrates `clock` from its response: `observer` reads the server's time
    /// by its schemes (sending a `TimeSync-Nonce` for the `TimeSync-Time` header to echo). A response
    /// without a usable time leaves the clock as it was; the clock notes why against the observer's
    /// source.
    /// - Returns: The body and the response.
    /// - Throws: URLSession's errors; ``TimeSync/TimeSyncError`` ``TimeSync/TimeSyncError/Code/invalidResponse``
    ///   for a response that is not HTTP.
    public func data(for request: URLRequest, calibrating clock: ServerClock, observer: HTTPTimeObserver) async throws -> (data: Data, response: HTTPURLResponse) {
        let (data, response, observation): (Data, HTTPURLResponse, Result<HTTPTimeObservation, HTTPTimeError>)
        do {
            (data, response, observation) = try await timeSyncData(for: request, observer: observer)
        } catch let error as HTTPTimeError {
            throw error.timeSyncError
        }
        switch observation {
        case .success(let observation): clock.calibrate(with: observation.sample)
        case .failure(let error): clock.reject(source: observer.source, reason: error.description)
        }
        return (data, response)
    }
}

/// An endpoint of yours polled over URLSession, as a `SourceDriver` for a `TimeSynchronizer` — no
/// SwiftNIO: what an iOS app uses. Each measurement is one `GET`; the observer's schemes say where
/// the response carries the time (`TimeSync-Time`, `Date`, a Unix timestamp header, your own).
package struct URLSessionTimeSource: SourceDriver {
    /// The endpoint.
    package let url: URL
    /// Where responses carry the server's time.
    package let observer: HTTPTimeObserver
    /// Which time the server tells: UTC by default; `.service(name)` when your server's own clock is
    /// the reference.
    package var reference: TimeReference
    private let session: URLSession
    private let schemeFloor = HTTPSchemeFloor()

    /// The source's name: the observer's.
    package var name: String { observer.source }

    /// Creates a source.
    /// - Parameters:
    ///   - url: The endpoint (a small, uncached response is best: the bounds span the whole load).
    ///   - schemes: Where responses carry the time; by default `TimeSync-Time`, else `Date`.
    ///   - reference: Which time the server tells.
    ///   - session: The session (`.shared` by default).
    ///   - timeBase: The clocks; must be the synchronizer's.
    package init(
        url: URL, schemes: [HTTPTimeScheme] = [.timeSyncTime, .date], reference: TimeReference = .utc,
        session: URLSession = .shared, timeBase: any TimeBase
    ) {
        self.url = url
        self.reference = reference
        self.session = session
        // `host[:port]` like the other HTTP sources' names, an IPv6 literal in brackets.
        let source = url.host.map { HostPort.format(host: $0, port: url.port) } ?? url.absoluteString
        observer = HTTPTimeObserver(source: source, schemes: schemes, timeBase: timeBase)
    }

    /// Loads the endpoint once and takes a sample from the response.
    /// - Throws: `HTTPTimeError.retryLater` for a `429` or `503` (with the `Retry-After` it
    ///   asked for), the observer's `HTTPTimeError` for a response without a usable time,
    ///   `HTTPTimeError.timeHeaderWithdrawn` for a response read by a scheme listed after one an
    ///   earlier response of this source was read by (the `Date` after `TimeSync-Time`), URLSession's
    ///   errors.
    package func measure(until deadline: Deadline) async throws -> [OffsetSample] {
        let request = URLRequest(url: url)
        let (_, response, observation) = try await session.timeSyncData(for: request, observer: observer, until: deadline)
        if let error = HTTPTimeError.retryLater(
            status: response.statusCode, headers: response.headerPairs, wallNow: observer.timeBase.wallNow())
        {
            throw error
        }
        let taken = try observation.get()
        // Once a response carried an earlier scheme (`TimeSync-Time`), a later one is not stepped down to.
        try schemeFloor.check(taken.scheme, among: observer.schemes.map(\.kind), source: name)
        return [taken.sample]
    }
}
#endif
