#if Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1

/// Hummingbird's HTTP/1 child channel within ``HTTPConnectionLimits``: each accepted connection is
/// counted against the caps (and closed at once when over them, before the server's loop sees it),
/// and closed when a request head or the next request is late.
///
/// Build it with ``HummingbirdCore/HTTPServerBuilder/http1(limits:configuration:)``.
public struct LimitedHTTP1Channel: ServerChildChannel {
    /// An admitted connection, served over HTTP/1.
    public struct Value: ServerChildChannelValue {
        /// The connection.
        public let channel: any Channel
        let http: HTTP1Channel.Value
    }

    /// The limits.
    public let limits: HTTPConnectionLimits
    /// The open connections and the caps.
    package let registry: HTTPConnectionRegistry
    private let http1: HTTP1Channel

    /// Creates the child channel of one server.
    /// - Parameters:
    ///   - responder: Answers requests.
    ///   - limits: Timeouts and caps.
    ///   - configuration: Hummingbird's HTTP/1 settings (its own `idleTimeout` too, if set).
    public init(
        responder: @escaping HTTPChannelHandler.Responder, limits: HTTPConnectionLimits,
        configuration: HTTP1Channel.Configuration = .init()
    ) {
        self.limits = limits
        registry = HTTPConnectionRegistry(limits: limits)
        http1 = HTTP1Channel(responder: responder, configuration: configuration)
    }

    /// Admits the connection or refuses it; an admitted one gets Hummingbird's HTTP/1 pipeline with
    /// the watch of its timeouts around the decoder.
    public func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let registry = self.registry
        guard let id = registry.admit(channel) else {
            logger.debug("connection refused: over the connection limits", metadata: ["address": "\(channel.remoteAddress?.description ?? "?")"])
            // Closed before it is registered or handed to the server's loop: a refusal costs an
            // accept and a close, nothing more. The server's loop never sees a failed setup.
            channel.close(promise: nil)
            return channel.eventLoop.makeFailedFuture(ConnectionRefused())
        }
        channel.closeFuture.whenComplete { _ in registry.remove(id) }
        if let listener = channel.parent { registry.endConnections(whenClosed: listener) }
        // Runs on the connection's event loop: the handlers are added before it is registered.
        let watch = HTTPConnectionWatch(limits: limits, registry: registry, id: id)
        do {
            try channel.pipeline.syncOperations.addHandler(HTTPConnectionBytesHandler(watch: watch), position: .first)
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        return http1.setup(channel: channel, logger: logger).assumeIsolated().flatMapThrowing { http in
            let decoder = try channel.pipeline.syncOperations.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try channel.pipeline.syncOperations.addHandler(HTTPConnectionPartsHandler(watch: watch), position: .after(decoder))
            return Value(channel: channel, http: http)
        }.nonisolated()
    }

    /// Serves an admitted connection, in a task of its own: returns at once.
    ///
    /// The server runs `handle` as one more child of a task group per connection, and the Swift
    /// runtime searches a group's children linearly when one ends: with thousands of connections
    /// open (idle ones held by clients), every short-lived connection would pay for all of them
    /// (half the server's CPU with 9,000 open). Served in its own task, a connection costs the same
    /// however many others are open. It still ends with the server: when the listening socket
    /// closes (graceful shutdown or cancellation), every admitted connection's input is closed, so it
    /// finishes the response it is writing and closes.
    public func handle(value: Value, logger: Logger) async {
        let http1 = self.http1
        Task { await http1.handle(value: value.http, logger: logger) }
    }
}

/// A connection over the limits, closed as soon as it was accepted.
struct ConnectionRefused: Error {}

extension HTTPServerBuilder {
    /// Hummingbird's HTTP/1 server within connection limits: header and idle timeouts, a total and
    /// a per-address connection cap (see ``HTTPConnectionLimits``).
    ///
    /// ```swift
    /// let app = TimeSyncApplication(
    ///     router: router.timeStamped(),
    ///     server: .http1(limits: HTTPConnectionLimits(headerTimeout: .seconds(5), maximumConnectionsPerAddress: 64)))
    /// ```
    /// - Parameters:
    ///   - limits: Timeouts and caps (the defaults of ``HTTPConnectionLimits`` by default).
    ///   - configuration: Hummingbird's HTTP/1 settings.
    /// - Returns: The builder; each server it builds counts its own connections.
    public static func http1(
        limits: HTTPConnectionLimits, configuration: HTTP1Channel.Configuration = .init()
    ) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in
            LimitedHTTP1Channel(responder: responder, limits: limits, configuration: configuration)
        }
    }
}
#endif
