#if Hummingbird
import Hummingbird
import Logging
import TimeSync

extension Router {
    /// Adds the `/time` endpoint: a tiny `GET` answered with `Cache-Control: no-store` and the
    /// server's time as decimal seconds since the epoch in a `text/plain` body. The time clients
    /// calibrate from is in the `TimeSync-Time` header added by ``TimestampMiddleware``.
    /// - Parameters:
    ///   - path: The route's path; `/time` by default.
    ///   - timeBase: The clocks; the wall clock is written to the body.
    /// - Returns: The router, for chaining.
    @discardableResult
    public func addTimeRoute(_ path: RouterPath = "/time", timeBase: (any TimeBase)? = nil) -> Self {
        let timeBase = timeBase ?? SystemTimeBase()
        get(path) { _, _ -> Response in
            let now = timeBase.wallNow()
            let fraction = String(now.nanoseconds - now.seconds * 1_000_000_000)
            let body = "\(now.seconds).\(String(repeating: "0", count: 9 - fraction.count))\(fraction)\n"
            return Response(
                status: .ok,
                headers: [.cacheControl: "no-store", .contentType: "text/plain; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
        }
        return self
    }
}

/// The TimeSync HTTP time server: a Hummingbird application serving `/time` with every response
/// stamped (by ``TimestampResponder`` around the router; ``router(timeBase:uncertainty:cors:)`` gives the
/// ``TimestampMiddleware`` form for apps that build their own application).
public enum TimeSyncHTTPServer {
    /// A file the server sends as it is, with its media type and `Cache-Control: no-cache`.
    public struct StaticFile: Sendable, Hashable {
        /// The `Content-Type`, such as `text/javascript; charset=utf-8`.
        public var contentType: String
        /// The file's bytes.
        public var body: [UInt8]

        /// Creates a file to serve.
        public init(contentType: String, body: [UInt8]) {
            self.contentType = contentType
            self.body = body
        }
    }

    /// A router with the middleware (outermost) and the `/time` route.
    /// - Parameters:
    ///   - timeBase: The clocks the server serves.
    ///   - uncertainty: The server's own clock error bound to advertise, if known.
    ///   - cors: Which web pages on other origins may read the stamps; `nil` adds no CORS header.
    /// - Returns: The router; add your own routes to it before building the application.
    public static func router(timeBase: (any TimeBase)? = nil, uncertainty: Duration? = nil, cors: TimeSyncCORS? = nil)
        -> Router<BasicRequestContext>
    {
        let timeBase = timeBase ?? SystemTimeBase()
        let router = Router(context: BasicRequestContext.self)
        router.add(middleware: TimestampMiddleware(timeBase: timeBase, uncertainty: uncertainty, cors: cors))
        router.addTimeRoute(timeBase: timeBase)
        return router
    }

    /// The application: a ServiceLifecycle `Service` listening on `host:port`, `/time` served and every
    /// response stamped by a ``TimestampResponder`` (no middleware chain), run as a
    /// ``TimeSyncApplication`` so that each response's `Date` is its t3's second.
    /// - Parameters:
    ///   - host: The address to bind.
    ///   - port: The port to bind; 0 picks a free one (reported through `onServerRunning`).
    ///   - timeBase: The clocks the server serves.
    ///   - limits: Header and idle timeouts and connection caps (the defaults by default).
    ///   - cors: Which web pages on other origins may read the stamps; `nil` adds no CORS header.
    ///   - files: Files served as they are at their paths, such as the JavaScript client and a page
    ///     that uses it (`timesync serve --http` serves both); stamped like every response.
    ///   - logger: The server's logger.
    ///   - onServerRunning: Called with the bound port once the server listens.
    /// - Returns: The application, ready for `runService()` or a `ServiceGroup`; it throws
    ///   `ServerBindError` when the address is in use, needs privileges, or is not this host's.
    public static func application(
        host: String, port: Int, timeBase: (any TimeBase)? = nil, limits: HTTPConnectionLimits = .init(),
        cors: TimeSyncCORS? = nil, files: [String: StaticFile] = [:], logger: Logger,
        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let timeBase = timeBase ?? SystemTimeBase()
        let router = Router(context: BasicRequestContext.self)
        router.addTimeRoute(timeBase: timeBase)
        for (path, file) in files.sorted(by: { $0.key < $1.key }) {
            let body = ByteBuffer(bytes: file.body)
            router.get(RouterPath(path)) { _, _ -> Response in
                Response(
                    status: .ok, headers: [.contentType: file.contentType, .cacheControl: "no-cache"],
                    body: ResponseBody(byteBuffer: body))
            }
        }
        var application = TimeSyncApplication(
            router: router.timeStamped(timeBase: timeBase, cors: cors), server: .http1(limits: limits),
            configuration: .init(address: .hostname(host, port: port), serverName: nil),
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? port) },
            timeBase: timeBase, logger: logger)
        application.listenAddress = (host, port)
        return application
    }
}
#endif
