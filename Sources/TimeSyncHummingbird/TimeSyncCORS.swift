#if Hummingbird
import HTTPTypes
import Hummingbird
import TimeSyncHTTP

/// Which web pages may read a stamped response from another origin (CORS): a page on
/// `https://shop.example` that calibrates against `https://time.example` needs the server to name
/// its origin and to expose `TimeSync-Time` and `Date`, which a browser otherwise hides from scripts.
///
/// For an allowed `Origin`, a stamped response gets `Access-Control-Allow-Origin` (the origin itself,
/// with `Vary: Origin`, or `*` for ``Origins/any``), `Access-Control-Expose-Headers: TimeSync-Time, Date, Age, Retry-After` (a client refuses a cached answer by its `Age`, and waits as long as `Retry-After` says)
/// and `Timing-Allow-Origin` (so the page's Resource Timing gives when the request left and the
/// answer arrived, which tightens its bounds).
/// The browser asks before it sends the `TimeSync-Nonce` request header (a preflight `OPTIONS`), and
/// the stamper answers it: `204`, the methods `GET` and `HEAD`, the header `TimeSync-Nonce`, for
/// ``maximumAge``. A request from an origin not allowed gets none of these headers: the browser then
/// keeps the response from the page, and a preflight gets `403`.
public struct TimeSyncCORS: Sendable, Hashable {
    /// The origins allowed.
    public enum Origins: Sendable, Hashable {
        /// Every origin (`Access-Control-Allow-Origin: *`): the time is public.
        case any
        /// These origins only, each as a browser sends it (`https://shop.example`, a port when not
        /// the scheme's default), compared without regard to case.
        case only([String])
    }

    /// The origins allowed.
    public var origins: Origins
    /// How long a browser may reuse a preflight's answer (default one day).
    public var maximumAge: Duration

    /// Allows `origins`.
    public init(origins: Origins, maximumAge: Duration = .seconds(86_400)) {
        self.origins = origins
        self.maximumAge = maximumAge
    }

    /// `Timing-Allow-Origin` (W3C Resource Timing), which HTTPTypes does not name.
    static let timingAllowOrigin = HTTPField.Name("Timing-Allow-Origin")!

    /// The headers a script may read from a stamped response.
    static let exposedHeaders = "TimeSync-Time, Date, Age, Retry-After"

    /// The `Access-Control-Allow-Origin` value for a request's `Origin`; `nil` when it is not allowed.
    func allowedOrigin(_ origin: String) -> String? {
        switch origins {
        case .any: return "*"
        case .only(let list): return list.contains { $0.equalsIgnoringCase(origin) } ? origin : nil
        }
    }

    /// Adds the headers that let the page at the request's `Origin` read `response`, when it may.
    func allow(_ response: inout Response, for request: Request) {
        guard let origin = request.headers[.origin], let allowed = allowedOrigin(origin) else { return }
        response.headers[.accessControlAllowOrigin] = allowed
        response.headers[.accessControlExposeHeaders] = Self.exposedHeaders
        // Resource Timing's requestStart and responseStart: when the request really left and the
        // answer's first byte arrived, tighter than the script's own timing of its fetch.
        response.headers[Self.timingAllowOrigin] = allowed
        if allowed != "*" { response.headers.append(HTTPField(name: .vary, value: "Origin")) }
    }

    /// The answer to a CORS preflight (`OPTIONS` with `Origin` and `Access-Control-Request-Method`);
    /// `nil` for any other request.
    func preflight(_ request: Request) -> Response? {
        guard request.method == .options, let origin = request.headers[.origin],
            request.headers[.accessControlRequestMethod] != nil
        else { return nil }
        guard let allowed = allowedOrigin(origin) else { return Response(status: .forbidden) }
        var headers: HTTPFields = [
            .accessControlAllowOrigin: allowed,
            .accessControlAllowMethods: "GET, HEAD",
            .accessControlAllowHeaders: HTTPTimeHeader.nonceName,
            .accessControlMaxAge: String(maximumAge.components.seconds),
        ]
        if allowed != "*" { headers[.vary] = "Origin" }
        return Response(status: .noContent, headers: headers)
    }
}

private extension String {
    /// Equal to `other` but for ASCII case, as origins compare.
    func equalsIgnoringCase(_ other: String) -> Bool {
        lowercased() == other.lowercased()
    }
}
#endif
