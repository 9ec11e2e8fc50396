#if canImport(FoundationNetworking) || canImport(Darwin)
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TimeSync
import TimeSyncWire

/// Any HTTPS server's `Date` header, refined below a second, as a `SourceDriver` over URLSession: no
/// SwiftNIO, and no UDP, so it works where NTP is blocked and on watchOS.
///
/// `Date` tells whole seconds. Each measurement sends a few `HEAD` requests timed by `HTTPMeasurement`'s
/// `DateRefinementPlan` so that the server's second boundary falls inside one of them: the bounds
/// shrink toward the round trip. A `Date` server is not authenticated beyond its TLS certificate;
/// use several (the synchronizer's selection drops one that disagrees with the others).
package struct URLSessionDateSource: SourceDriver {
    /// The server asked.
    package let url: URL
    /// The most requests one measurement sends.
    package let requestsPerMeasurement: Int
    private let observer: HTTPTimeObserver
    private let session: URLSession

    /// `Date` tells UTC.
    package var reference: TimeReference { .utc }

    /// The source's name: `host[:port]`.
    package var name: String { observer.source }

    /// Well-known HTTPS hosts whose `Date` comes from clocks kept by NTP, behind large CDNs: what
    /// `TimeSynchronizer.shared` falls back to where NTP gets no answer (and uses alone on watchOS).
    package static let defaultHosts: [URL] = [
        URL(string: "https://www.google.com/")!, URL(string: "https://www.apple.com/")!,
        URL(string: "https://www.cloudflare.com/")!, URL(string: "https://www.microsoft.com/")!,
    ]

    /// Creates a source.
    /// - Parameters:
    ///   - url: The server (only its response headers are read: `HEAD`).
    ///   - requestsPerMeasurement: The most requests one measurement sends (at least 1; default 5).
    ///   - session: The session (`.shared` by default).
    ///   - timeBase: The clocks; must be the synchronizer's.
    package init(url: URL, requestsPerMeasurement: Int = 5, session: URLSession = .shared, timeBase: any TimeBase) {
        self.url = url
        self.requestsPerMeasurement = max(1, requestsPerMeasurement)
        self.session = session
        let source = url.host.map { HostPort.format(host: $0, port: url.port) } ?? url.absoluteString
        observer = HTTPTimeObserver(source: source, schemes: [.date], timeBase: timeBase)
    }

    /// Sends up to ``requestsPerMeasurement`` timed `HEAD` requests, all ending by `deadline`.
    /// - Returns: The samples, oldest first; at least one.
    /// - Throws: `HTTPTimeError.retryLater` for a `429` or `503`, the observer's `HTTPTimeError`
    ///   for a response without a usable `Date`, `HTTPTimeError.inconsistentSamples` when the
    ///   server contradicts itself, URLSession's errors when no request succeeded, `CancellationError`.
    package func measure(until deadline: Deadline) async throws -> [OffsetSample] {
        let timeBase = observer.timeBase
        var measurement = try HTTPMeasurement(
            .init(
                sources: [name], samples: requestsPerMeasurement, preference: .dateOnly, warmUp: false,
                requestTimeout: deadline.remaining(on: timeBase)),
            deadline: deadline)
        return try await session.run(&measurement, url: url, method: "HEAD", source: name, timeBase: timeBase).samples
    }
}
#endif
