import HTTPTypes
import Hummingbird
import TimeSync
import TimeSyncHTTP

/// Stamps every response with the `TimeSync-Time` header: the server's clock when the request
/// reached the middleware (t2) and just before the response is handed back for writing (t3).
///
/// Add it first (outermost) so t2 is taken as early and t3 as late as the router allows; every
/// route then calibrates clients passively, errors included. A `TimeSync-Nonce` request header
/// that is a valid RFC 9651 string of at most 64 characters is echoed.
public struct TimeStampMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The clocks; the wall clock stamps t2 and t3.
    public let timeBase: any TimeBase
    /// How far this server's clock may be off true time, sent as the `u` member; `nil` omits it.
    public let uncertainty: Duration?

    /// Creates the middleware.
    /// - Parameters:
    ///   - timeBase: The clocks (the server's wall clock is the time it serves).
    ///   - uncertainty: This server's own clock error bound, if known (for example from its NTP
    ///     synchronisation).
    public init(timeBase: any TimeBase = SystemTimeBase(), uncertainty: Duration? = nil) {
        self.timeBase = timeBase
        self.uncertainty = uncertainty
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
        let serverReceive = timeBase.wallNow()
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any HTTPResponseError {
            // Error responses (404s included) are answers too: stamp them.
            response = try error.response(from: request, context: context)
        }
        let nonce = request.headers[.timeSyncNonce].flatMap { HTTPTimeNonce.parse($0) }
        let header = HTTPTimeHeader(
            serverReceive: serverReceive, serverTransmit: timeBase.wallNow(), nonce: nonce, uncertainty: uncertainty)
        response.headers[.timeSyncTime] = header.fieldValue
        return response
    }
}

extension HTTPField.Name {
    /// `TimeSync-Time`, the response header of ``TimeStampMiddleware``.
    public static let timeSyncTime = Self(HTTPTimeHeader.name)!
    /// `TimeSync-Nonce`, the request header a client's nonce travels in.
    public static let timeSyncNonce = Self(HTTPTimeHeader.nonceName)!
}
