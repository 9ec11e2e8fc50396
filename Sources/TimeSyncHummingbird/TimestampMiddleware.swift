#if Hummingbird
import HTTPTypes
import Hummingbird
import TimeSync
import TimeSyncWire
import TimeSyncHTTP

/// Stamps every response with the `TimeSync-Time` header: the server's clock when the request
/// reached the middleware (t2) and just before the response is handed back for writing (t3) — and
/// with a `Date` header naming t3's second, from the same clock reading.
///
/// Hummingbird's `Application` replaces every `Date` with its own, cached once a second (up to two
/// seconds behind the clock, and a second off t3 about half the time); run the application as a
/// ``TimeSyncApplication`` to keep the stamped one.
///
/// Add it first (outermost) so t2 is taken as early and t3 as late as the router allows; every
/// route then calibrates clients passively, errors included. A `TimeSync-Nonce` request header
/// that is a valid RFC 9651 string of at most 64 characters is echoed.
public struct TimestampMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The clocks; the wall clock stamps t2 and t3.
    public let timeBase: any TimeBase
    /// How far this server's clock may be off true time, sent as the `u` member; `nil` omits it.
    public let uncertainty: Duration?
    /// Which web pages on other origins may read the stamps; `nil` (the default) adds no CORS header.
    public let cors: TimeSyncCORS?

    /// Creates the middleware.
    /// - Parameters:
    ///   - timeBase: The clocks (the server's wall clock is the time it serves).
    ///   - uncertainty: This server's own clock error bound, if known (for example from its NTP
    ///     synchronisation).
    ///   - cors: Which web pages on other origins may read the stamps (and send a nonce).
    public init(timeBase: (any TimeBase)? = nil, uncertainty: Duration? = nil, cors: TimeSyncCORS? = nil) {
        let timeBase = timeBase ?? SystemTimeBase()
        self.timeBase = timeBase
        self.uncertainty = uncertainty
        self.cors = cors
    }

    /// Stamps t2, runs the rest of the chain (turning an `HTTPResponseError` into its response), then
    /// stamps t3 and adds the header.
    /// - Parameters:
    ///   - request: The request.
    ///   - context: The request context.
    ///   - next: The rest of the middleware chain and the route.
    /// - Returns: The response with the `TimeSync-Time` header.
    /// - Throws: Errors of the chain that are not `HTTPResponseError`s (the server answers them with
    ///   its generic error response, unstamped).
    public func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        try await Timestamper(timeBase: timeBase, uncertainty: uncertainty, cors: cors).respond(to: request, context: context) {
            try await next(request, context)
        }
    }
}

extension HTTPResponderBuilder where Responder.Context: RequestContext {
    /// This router (or other builder) with every response stamped by a ``TimestampResponder``: pass it
    /// to `Application(router:)`.
    /// - Parameters:
    ///   - timeBase: The clocks (the server's wall clock is the time it serves).
    ///   - uncertainty: This server's own clock error bound, if known.
    ///   - cors: Which web pages on other origins may read the stamps; `nil` adds no CORS header.
    public func timeStamped(timeBase: (any TimeBase)? = nil, uncertainty: Duration? = nil, cors: TimeSyncCORS? = nil)
        -> TimestampResponderBuilder<Self>
    {
        let timeBase = timeBase ?? SystemTimeBase()
        return TimestampResponderBuilder(base: self, timeBase: timeBase, uncertainty: uncertainty, cors: cors)
    }
}

/// The stamping both forms share: t2, the answer (errors included), t3, the nonce echo, the header
/// and the `Date` of t3's second; with CORS, the preflight's answer and the headers that let an
/// allowed page read the stamps.
struct Timestamper: Sendable {
    let timeBase: any TimeBase
    let uncertainty: Duration?
    var cors: TimeSyncCORS? = nil

    /// Stamps t2, lets `answer` respond (an `HTTPResponseError` becomes its response: error
    /// responses, 404s included, are answers too), then stamps t3 and adds the header.
    /// - Throws: Errors of `answer` that are not `HTTPResponseError`s.
    func respond<Context: RequestContext>(
        to request: Request, context: Context, _ answer: () async throws -> Response
    ) async throws -> Response {
        let serverReceive = timeBase.wallNow()
        var response: Response
        if let preflight = cors?.preflight(request) {
            response = preflight
        } else {
            do {
                response = try await answer()
            } catch let error as any HTTPResponseError {
                response = try error.response(from: request, context: context)
            }
            cors?.allow(&response, for: request)
        }
        stamp(&response, for: request, receivedAt: serverReceive)
        return response
    }

    /// Adds `TimeSync-Time` with t2 = `receivedAt` and t3 = now, echoing the request's nonce, and
    /// sets `Date` to t3's second: one clock reading, so the two headers always agree.
    private func stamp(_ response: inout Response, for request: Request, receivedAt: UnixTime) {
        let nonce = request.headers[.timeSyncNonce].flatMap { HTTPTimeNonce.parse($0) }
        let serverTransmit = timeBase.wallNow()
        let header = HTTPTimeHeader(
            serverReceive: receivedAt, serverTransmit: serverTransmit, nonce: nonce, uncertainty: uncertainty)
        response.headers[.timeSyncTime] = header.fieldValue
        response.headers[.date] = HTTPDate.imfFixdate(serverTransmit)
    }
}

extension HTTPField.Name {
    /// `TimeSync-Time`, the response header of ``TimestampMiddleware``.
    public static let timeSyncTime = Self(HTTPTimeHeader.name)!
    /// `TimeSync-Nonce`, the request header a client's nonce travels in.
    public static let timeSyncNonce = Self(HTTPTimeHeader.nonceName)!
}
#endif
