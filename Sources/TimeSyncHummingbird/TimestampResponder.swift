#if Hummingbird
import HTTPTypes
import Hummingbird
import TimeSync
import TimeSyncHTTP

/// Stamps every response of a whole responder (a built router) with the `TimeSync-Time` header — the
/// same header as ``TimestampMiddleware``, from outside the router: t2 before routing, t3 after
/// everything, and none of the cost of Hummingbird's middleware chain (`docs/BENCHMARKS.md` §3
/// measures both forms). The `Date` header names t3's second, from the same clock reading.
///
/// ```swift
/// let router = Router()
/// router.get("/api") { _, _ in "ok" }
/// let app = TimeSyncApplication(router: router.timeStamped())
/// ```
///
/// In Hummingbird's `Application` the `TimeSync-Time` header is the same, but the `Date` header is
/// the application's cached one (see ``TimeSyncApplication``).
public struct TimestampResponder<Wrapped: HTTPResponder>: HTTPResponder where Wrapped.Context: RequestContext {
    /// The request context: the wrapped responder's.
    public typealias Context = Wrapped.Context
    /// The responder whose responses are stamped.
    public let wrapped: Wrapped
    private let stamper: Timestamper

    /// Wraps a responder.
    /// - Parameters:
    ///   - wrapped: The responder, typically `router.buildResponder()`.
    ///   - timeBase: The clocks (the server's wall clock is the time it serves).
    ///   - uncertainty: This server's own clock error bound, if known.
    ///   - cors: Which web pages on other origins may read the stamps; `nil` adds no CORS header.
    public init(_ wrapped: Wrapped, timeBase: (any TimeBase)? = nil, uncertainty: Duration? = nil, cors: TimeSyncCORS? = nil) {
        let timeBase = timeBase ?? SystemTimeBase()
        self.wrapped = wrapped
        self.stamper = Timestamper(timeBase: timeBase, uncertainty: uncertainty, cors: cors)
    }

    /// Stamps t2, lets the wrapped responder answer (an `HTTPResponseError` becomes its response),
    /// then stamps t3 and adds the header.
    /// - Throws: Errors of the wrapped responder that are not `HTTPResponseError`s.
    @Sendable public func respond(to request: Request, context: Context) async throws -> Response {
        try await stamper.respond(to: request, context: context) {
            try await wrapped.respond(to: request, context: context)
        }
    }
}
#endif
