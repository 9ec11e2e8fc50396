#if AsyncHTTPClient
import AsyncHTTPClient
import Logging
import TimeSync
import TimeSyncHTTP

extension TimeSource {
    /// An endpoint of yours polled over AsyncHTTPClient (a server's way: SwiftNIO, no URLSession).
    /// Each measurement takes a few exchanges with the `TimeSync-Time` header, nonce echoed; where the
    /// server sends none, the `Date` header refined below a second. Once the server has answered with
    /// `TimeSync-Time`, a response without it is refused: a cache or a replay does not step the
    /// source down to `Date`.
    /// - Parameters:
    ///   - url: An absolute `http` or `https` URL.
    ///   - client: The HTTP client; ``httpClient()`` makes one suited to timing.
    ///   - reference: Which time the server tells: UTC by default; `.service(name)` when your
    ///     server's own clock is the reference.
    ///   - logger: Where rejected responses are logged (nowhere by default).
    /// - Throws: `TimeSyncError` `.invalidURL` for anything but an absolute http(s) URL with a host.
    public static func api(
        _ url: String, client: HTTPClient, reference: TimeReference = .utc,
        logger: Logger = Logger(label: "timesync.http", factory: { _ in SwiftLogNoOpLogHandler() })
    ) throws(TimeSyncError) -> TimeSource {
        try source(url, client: client, preference: .preferTimeHeader, reference: reference, logger: logger)
    }

    /// Any HTTP server's `Date` header over AsyncHTTPClient, refined below a second: a few requests
    /// per measurement, each timed so that the server's second boundary falls inside its round trip.
    /// - Parameters:
    ///   - url: An absolute `http` or `https` URL.
    ///   - client: The HTTP client; ``httpClient()`` makes one suited to timing.
    ///   - logger: Where rejected responses are logged (nowhere by default).
    /// - Throws: `TimeSyncError` `.invalidURL` for anything but an absolute http(s) URL with a host.
    public static func https(
        _ url: String, client: HTTPClient,
        logger: Logger = Logger(label: "timesync.http", factory: { _ in SwiftLogNoOpLogHandler() })
    ) throws(TimeSyncError) -> TimeSource {
        try source(url, client: client, preference: .dateOnly, reference: .utc, logger: logger)
    }

    /// An HTTP client suited to time measurement: redirects are not followed (a redirected request
    /// spans two exchanges), a refused connection fails the request at once instead of being retried
    /// until the deadline, and SwiftNIO's shared POSIX event loop group is used on every platform.
    /// Shut it down when done.
    public static func httpClient() -> HTTPClient { HTTPTimeSource.makeClient() }

    private static func source(
        _ url: String, client: HTTPClient, preference: HTTPTimeScheme.Preference, reference: TimeReference, logger: Logger
    ) throws(TimeSyncError) -> TimeSource {
        // The URL is checked once, here, so that the factory throws rather than each measurement.
        guard HTTPTimeSource.sourceName(url) != nil else { throw HTTPTimeError.invalidURL.withDetail(url).timeSyncError }
        return TimeSource { timeBase in
            var source = try! HTTPTimeSource(url: url, client: client, policy: preference, timeBase: timeBase, logger: logger)
            source.reference = reference
            return source
        }
    }
}
#endif
