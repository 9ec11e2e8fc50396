#if canImport(FoundationNetworking) || canImport(Darwin)
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TimeSync

extension URLSession {
    /// Loads a request and takes a clock sample from its response: the passive entry point for apps
    /// on URLSession.
    ///
    /// The request gets a fresh `TimeSync-Nonce` and bypasses the local cache (a cached response
    /// carries a stale time). The instants bracket the whole load, body included, so the bounds are
    /// honest but as wide as the load took; keep the calibrating requests small.
    ///
    /// - Parameters:
    ///   - request: The request to send.
    ///   - observer: Turns the response into a sample (source name, header policy, clocks).
    ///   - nonce: The nonce to send; a random one by default.
    /// - Returns: The body, the response and the sample or why the response was rejected.
    /// - Throws: URLSession's errors; a non-HTTP response is rejected with `HTTPTimeError.notHTTPResponse`.
    package func timeSyncData(
        for request: URLRequest, observer: HTTPTimeObserver, nonce: String = HTTPTimeNonce.random()
    ) async throws -> (data: Data, response: HTTPURLResponse, observation: Result<HTTPTimeObservation, HTTPTimeError>) {
        try await timeSyncData(for: request, observer: observer, nonce: nonce) { try await self.data(for: $0) }
    }

    /// ``timeSyncData(for:observer:nonce:)`` within a deadline (see ``URLSessionLoad``).
    func timeSyncData(
        for request: URLRequest, observer: HTTPTimeObserver, until deadline: Deadline
    ) async throws -> (data: Data, response: HTTPURLResponse, observation: Result<HTTPTimeObservation, HTTPTimeError>) {
        try await timeSyncData(for: request, observer: observer, nonce: HTTPTimeNonce.random()) { request in
            try await URLSessionLoad.data(for: request, session: self, deadline: deadline, timeBase: observer.timeBase)
        }
    }

    private func timeSyncData(
        for request: URLRequest, observer: HTTPTimeObserver, nonce: String,
        load: (URLRequest) async throws -> (Data, URLResponse)
    ) async throws -> (data: Data, response: HTTPURLResponse, observation: Result<HTTPTimeObservation, HTTPTimeError>) {
        var request = request
        request.cachePolicy = .reloadIgnoringLocalCacheData
        request.setValue(HTTPTimeNonce.fieldValue(nonce), forHTTPHeaderField: HTTPTimeHeader.nonceName)
        let requestSent = observer.timeBase.monotonicNow()
        let (data, response) = try await load(request)
        let responseReceived = observer.timeBase.monotonicNow()
        guard let http = response as? HTTPURLResponse else { throw HTTPTimeError(.notHTTPResponse, detail: request.url?.absoluteString) }
        let headers = http.headerPairs
        let observation: Result<HTTPTimeObservation, HTTPTimeError>
        do {
            observation = .success(
                try observer.observe(
                    status: http.statusCode, headers: headers, requestSent: requestSent,
                    responseReceived: responseReceived, nonce: nonce))
        } catch {
            observation = .failure(error)
        }
        return (data, http, observation)
    }
}

extension HTTPURLResponse {
    /// The header fields as name/value pairs, what ``HTTPTimeObserver`` reads.
    package var headerPairs: [(name: String, value: String)] {
        allHeaderFields.compactMap { key, value in
            guard let name = key as? String, let value = value as? String else { return nil }
            return (name: name, value: value)
        }
    }
}
#endif
