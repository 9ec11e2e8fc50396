#if canImport(FoundationNetworking) || canImport(Darwin)
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TimeSync

extension TimeSource {
    /// An endpoint of yours, polled over URLSession (no SwiftNIO: what an iOS app uses). Each
    /// measurement is one `GET`; `schemes` say where the response carries the time, the first that
    /// a response carries winning: `TimeSync-Time` (precise), a Unix timestamp header, your own, or
    /// `Date` (whole seconds).
    /// - Parameters:
    ///   - url: The endpoint (a small, uncached response is best: the bounds span the whole load).
    ///   - schemes: Where responses carry the time; by default `TimeSync-Time`, else `Date`.
    ///   - reference: Which time the server tells: UTC by default; `.service(name)` when your
    ///     server's own clock is the reference.
    ///   - session: The session (`.shared` by default).
    public static func api(
        _ url: URL, schemes: [HTTPTimeScheme] = [.timeSyncTime, .date], reference: TimeReference = .utc, session: URLSession = .shared
    ) -> TimeSource {
        TimeSource { URLSessionTimeSource(url: url, schemes: schemes, reference: reference, session: session, timeBase: $0) }
    }

    /// Any HTTPS server's `Date` header, refined below a second: a few timed `HEAD` requests per
    /// measurement place the server's second boundary inside one round trip. No UDP, so it works
    /// where NTP is blocked and on watchOS. A `Date` server is vouched for by its TLS certificate
    /// alone: use several, so that the synchronizer's selection drops one that disagrees.
    /// - Parameters:
    ///   - url: The server (only its response headers are read).
    ///   - requestsPerMeasurement: The most requests one measurement sends (at least 1; default 5).
    ///   - session: The session (`.shared` by default).
    public static func https(_ url: URL, requestsPerMeasurement: Int = 5, session: URLSession = .shared) -> TimeSource {
        TimeSource { URLSessionDateSource(url: url, requestsPerMeasurement: requestsPerMeasurement, session: session, timeBase: $0) }
    }

    /// Well-known HTTPS hosts whose `Date` comes from clocks kept by NTP, behind large CDNs: what
    /// `TimeSynchronizer.shared` falls back to where NTP gets no answer (and uses alone on watchOS).
    ///
    /// They join only while the NTP servers are silent, and never outvote them. One caveat: Google
    /// smears leap seconds over 24 hours (developers.google.com/time/smear), so on the day of a leap
    /// second its refined `Date` may differ from UTC, and from the NTP defaults, by up to half a
    /// second. The vote across sources sets a host that disagrees with the others aside, and with
    /// too few left the clock says it is not synchronized rather than take a side. Pass your own
    /// hosts where that day matters.
    public static var defaultHTTPSHosts: [URL] { URLSessionDateSource.defaultHosts }
}
#endif
