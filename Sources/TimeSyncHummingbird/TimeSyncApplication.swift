#if Hummingbird
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle
import TimeSync
import TimeSyncWire
import TimeSyncServerSupport

/// A Hummingbird application whose `Date` header is the second its response was stamped: what
/// Hummingbird's `Application` does, less its date cache.
///
/// `Application` overwrites every response's `Date` with a string it formats once a second on a timer
/// that is not aligned to the second, so the header lags the clock by up to two seconds and
/// disagrees with the `TimeSync-Time` header's t3 about half the time. A `Date` is a time sample too
/// (browsers, `htpdate`, `timesync query --date-only` read it), so this application keeps the `Date`
/// its responder set — ``TimestampResponder`` and ``TimestampMiddleware`` set it from the very clock
/// reading that is t3 — and gives a response without one the second of a fresh reading of
/// ``timeBase``. Everything else (the server, the request context, the services, the `Server`
/// header, errors) is `Application`'s.
///
/// ```swift
/// let router = Router()
/// router.get("/api") { _, _ in "ok" }
/// let app = TimeSyncApplication(router: router.timeStamped())
/// try await app.runService()
/// ```
///
/// Unlike `Application`, it serves HTTP/1 within ``HTTPConnectionLimits`` by default: a client that
/// opens connections and sends nothing, or a request head a byte at a time, cannot hold the server's
/// file descriptors or memory.
///
/// HummingbirdTesting's `.live` and `.router` setups run their own server loop (the first with
/// `Application`'s date cache): test the `Date` header against the application run as a service.
public struct TimeSyncApplication<Responder: HTTPResponder>: ApplicationProtocol
where Responder.Context: InitializableFromSource<ApplicationRequestContextSource> {
    /// The event loops the server runs on.
    public let eventLoopGroup: any EventLoopGroup
    /// Answers requests.
    public let responder: Responder
    /// The address, server name and connection settings.
    public var configuration: ApplicationConfiguration
    /// The logger.
    public var logger: Logger
    /// Builds the server's child channels (HTTP/1 within the default ``HTTPConnectionLimits`` by
    /// default).
    public let server: HTTPServerBuilder
    /// Services run alongside the server.
    public var services: [any Service]
    /// The clocks: the wall clock dates responses that carry no `Date` of their own.
    public let timeBase: any TimeBase
    /// Run before the server starts.
    public private(set) var processesRunBeforeServerStart: [@Sendable () async throws -> Void]
    private let onServerRunningCallback: @Sendable (any Channel) async -> Void
    /// The host and port of `configuration.address`, when known: a failed bind then throws an
    /// `ServerBindError` naming them.
    var listenAddress: (host: String, port: Int)?

    /// Creates an application around a responder.
    /// - Parameters:
    ///   - responder: Answers requests (a ``TimestampResponder`` sets the `Date` header from t3).
    ///   - server: The child channel setup: HTTP/1 within the default ``HTTPConnectionLimits``
    ///     (header and idle timeouts, connection caps) unless given.
    ///   - configuration: The address, server name and connection settings.
    ///   - services: Services to run alongside the server.
    ///   - onServerRunning: Called with the server's channel once it listens.
    ///   - eventLoopGroupProvider: Where the event loops come from.
    ///   - timeBase: The clocks (default: the system's).
    ///   - logger: The logger (default: one labelled with the server name, or `Hummingbird`).
    public init(
        responder: Responder, server: HTTPServerBuilder = .http1(limits: HTTPConnectionLimits()), configuration: ApplicationConfiguration = .init(),
        services: [any Service] = [], onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in },
        eventLoopGroupProvider: EventLoopGroupProvider = .singleton, timeBase: (any TimeBase)? = nil,
        logger: Logger? = nil
    ) {
        let timeBase = timeBase ?? SystemTimeBase()
        self.eventLoopGroup = eventLoopGroupProvider.eventLoopGroup
        self.responder = responder
        self.configuration = configuration
        self.logger = logger ?? Logger(label: configuration.serverName ?? "Hummingbird")
        self.server = server
        self.services = services
        self.timeBase = timeBase
        self.processesRunBeforeServerStart = []
        self.onServerRunningCallback = onServerRunning
    }

    /// Creates an application around what a router (or other builder) builds.
    /// - Parameters:
    ///   - router: Builds the responder; `router.timeStamped()` stamps every response.
    ///   - server: The child channel setup: HTTP/1 within the default ``HTTPConnectionLimits``
    ///     (header and idle timeouts, connection caps) unless given.
    ///   - configuration: The address, server name and connection settings.
    ///   - services: Services to run alongside the server.
    ///   - onServerRunning: Called with the server's channel once it listens.
    ///   - eventLoopGroupProvider: Where the event loops come from.
    ///   - timeBase: The clocks (default: the system's).
    ///   - logger: The logger.
    public init<Builder: HTTPResponderBuilder>(
        router: Builder, server: HTTPServerBuilder = .http1(limits: HTTPConnectionLimits()), configuration: ApplicationConfiguration = .init(),
        services: [any Service] = [], onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in },
        eventLoopGroupProvider: EventLoopGroupProvider = .singleton, timeBase: (any TimeBase)? = nil,
        logger: Logger? = nil
    ) where Builder.Responder == Responder {
        let timeBase = timeBase ?? SystemTimeBase()
        self.init(
            responder: router.buildResponder(), server: server, configuration: configuration, services: services,
            onServerRunning: onServerRunning, eventLoopGroupProvider: eventLoopGroupProvider, timeBase: timeBase,
            logger: logger)
    }

    /// Adds services run alongside the server.
    public mutating func addServices(_ services: any Service...) {
        self.services.append(contentsOf: services)
    }

    /// Adds a process run (with the services already running) before the server starts.
    public mutating func beforeServerStarts(perform process: @escaping @Sendable () async throws -> Void) {
        processesRunBeforeServerStart.append(process)
    }

    /// Called once the server listens on `channel`; runs the `onServerRunning` closure given at creation.
    public func onServerRunning(_ channel: any Channel) async {
        await onServerRunningCallback(channel)
    }

    /// Runs the server and the services until graceful shutdown or cancellation: `Application`'s
    /// loop, where every response keeps its own `Date` (or gets the current second's).
    /// - Throws: `ServerBindError` when an application made by
    ///   ``TimeSyncHTTPServer/application(host:port:timeBase:limits:cors:files:logger:onServerRunning:)`` cannot
    ///   bind its address; the server's and the services' errors.
    public func run() async throws {
        let responder = self.responder
        let timeBase = self.timeBase
        let logger = self.logger
        let serverName = configuration.serverName
        let server = try self.server.buildServer(
            configuration: serverConfiguration, eventLoopGroup: eventLoopGroup, logger: logger
        ) { (request, responseWriter: consuming ResponseWriter, channel) in
            var requestLogger = logger
            requestLogger[metadataKey: "hb.request.id"] = .stringConvertible(RequestID())
            let context = Responder.Context(source: .init(channel: channel, logger: requestLogger))
            var response: Response
            do {
                response = try await responder.respond(to: request, context: context)
            } catch let error as HTTPParserError {
                throw error  // the server answers 400 and closes the connection
            } catch {
                requestLogger.debug("Unrecognised Error", metadata: ["error.type": "\(error)"])
                response = Response(status: .internalServerError, body: .init())
            }
            if response.headers[.date] == nil {
                response.headers[.date] = HTTPDate.imfFixdate(timeBase.wallNow())
            }
            if let serverName {
                response.headers[.server] = serverName
            }
            do {
                try await responseWriter.write(response: response.head, body: response.body)
            } catch is HTTPParserError {
                // Rethrown, it would make the server write a second response: end the connection.
                throw ParseErrorWhileWritingResponse()
            }
        } onServerRunning: {
            await self.onServerRunning($0)
        }
        let serverService = ServiceAfterPrelude(service: server, prelude: processesRunBeforeServerStart)
        let group = ServiceGroup(configuration: .init(services: services + [serverService], logger: logger))
        do {
            try await group.run()
        } catch {
            guard let (host, port) = listenAddress, let error = error as? IOError,
                let bindError = ServerBindError(errno: error.errnoCode, transport: "TCP", host: host, port: port)
            else { throw error }
            throw bindError
        }
    }

    /// `ApplicationConfiguration`'s server settings.
    private var serverConfiguration: ServerConfiguration {
        #if canImport(Network)
        ServerConfiguration(
            address: configuration.address, serverName: configuration.serverName, backlog: configuration.backlog,
            reuseAddress: configuration.reuseAddress, availableConnectionsDelegate: configuration.availableConnectionsDelegate,
            tlsOptions: configuration.tlsOptions)
        #else
        ServerConfiguration(
            address: configuration.address, serverName: configuration.serverName, backlog: configuration.backlog,
            reuseAddress: configuration.reuseAddress, availableConnectionsDelegate: configuration.availableConnectionsDelegate)
        #endif
    }
}

extension TimeSyncApplication: CustomStringConvertible {
    public var description: String { "TimeSyncApplication" }
}

/// A request body failed to parse while its response was being written.
private struct ParseErrorWhileWritingResponse: Error {}

/// Runs processes, then a service.
private struct ServiceAfterPrelude: Service {
    let service: any Service
    let prelude: [@Sendable () async throws -> Void]

    func run() async throws {
        for process in prelude { try await process() }
        try await service.run()
    }
}
#endif
