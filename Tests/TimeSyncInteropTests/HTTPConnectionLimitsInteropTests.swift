#if CLI
import Foundation
import Logging
import NIOCore
import NIOPosix
import Testing
import TimeSync
import TimeSyncHummingbird

/// `timesync serve --http`'s application on real loopback sockets, with small limits so that a run
/// takes seconds: idle and slowloris connections are closed on time, connections over the caps at
/// once, and `/time` answers throughout.
@Suite("HTTP connection limits on loopback", .serialized)
struct HTTPConnectionLimitsInteropTests {
    /// One client connection: what it received, and when it was opened and closed (by the server,
    /// since the client never closes first).
    final class Probe: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        private let state = Locked<(received: String, closed: ContinuousClock.Instant?)>(("", nil))
        let opened = ContinuousClock.now

        var received: String { state.withLock { $0.received } }
        var closed: ContinuousClock.Instant? { state.withLock { $0.closed } }
        /// Seconds from opening to closing, if closed.
        var lifetime: Double? { closed.map { Self.seconds(opened.duration(to: $0)) } }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let text = String(buffer: Self.unwrapInboundIn(data))
            state.withLock { $0.received += text }
        }

        func channelInactive(context: ChannelHandlerContext) {
            state.withLock { $0.closed = $0.closed ?? .now }
        }

        static func seconds(_ duration: Duration) -> Double {
            Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        }
    }

    /// A client connection from `source` (a loopback address: each counts as its own client).
    static func connect(to port: Int, from source: String) async throws -> (channel: any Channel, probe: Probe) {
        let probe = Probe()
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(to: try SocketAddress(ipAddress: source, port: 0))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(probe) }
            }
            .connect(host: "127.0.0.1", port: port).get()
        return (channel, probe)
    }

    /// `GET /time` on a new connection from `source`; the status line, or why there is none.
    static func time(port: Int, from source: String) async -> String {
        do {
            let (channel, probe) = try await connect(to: port, from: source)
            try await channel.writeAndFlush(ByteBuffer(string: "GET /time HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n"))
            let deadline = ContinuousClock.now + .seconds(5)
            while probe.closed == nil, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
            try? await channel.close()
            return probe.received.components(separatedBy: "\r\n").first ?? ""
        } catch {
            return "\(error)"
        }
    }

    static func quietLogger() -> Logger {
        var logger = Logger(label: "limits")
        logger.logLevel = .critical
        return logger
    }

    /// Runs `timesync serve --http`'s application with `limits` until `body` returns.
    static func withServer<Value>(_ limits: HTTPConnectionLimits, _ body: (Int) async throws -> Value) async throws -> Value {
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = TimeSyncHTTPServer.application(
            host: "127.0.0.1", port: 0, limits: limits, logger: quietLogger(), onServerRunning: { continuation.yield($0) })
        let server = Task { try await app.runService(gracefulShutdownSignals: []) }
        defer { server.cancel() }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())
        return try await body(port)
    }

    @Test("slowloris closed after the header timeout, idle keep-alive after the idle timeout, over the per-address cap at once; /time answers throughout")
    func timeoutsAndPerAddressCap() async throws {
        let limits = HTTPConnectionLimits(
            headerTimeout: .seconds(1), idleTimeout: .milliseconds(2_500), maximumConnections: 1_000,
            maximumConnectionsPerAddress: 100)
        try await Self.withServer(limits) { port in
            // 150 silent connections from one address: 100 admitted, 50 over the cap.
            var silent: [(channel: any Channel, probe: Probe)] = []
            for _ in 0..<150 { silent.append(try await Self.connect(to: port, from: "127.0.0.1")) }
            // 100 slowloris connections from another: a head that never ends, a header line every 200 ms.
            var slow: [(channel: any Channel, probe: Probe)] = []
            for _ in 0..<100 {
                let connection = try await Self.connect(to: port, from: "127.0.0.2")
                connection.channel.writeAndFlush(ByteBuffer(string: "GET /time HTTP/1.1\r\nHost: test\r\n"), promise: nil)
                let channel = connection.channel
                channel.eventLoop.scheduleRepeatedTask(initialDelay: .milliseconds(200), delay: .milliseconds(200)) { task in
                    guard channel.isActive else { return task.cancel() }
                    channel.writeAndFlush(ByteBuffer(string: "X-Slow: 1\r\n"), promise: nil)
                }
                slow.append(connection)
            }
            // 50 kept-alive connections from a third: one request each, then silence.
            var kept: [(channel: any Channel, probe: Probe)] = []
            for _ in 0..<50 {
                let connection = try await Self.connect(to: port, from: "127.0.0.3")
                try await connection.channel.writeAndFlush(ByteBuffer(string: "GET /time HTTP/1.1\r\nHost: test\r\n\r\n"))
                kept.append(connection)
            }
            try await Task.sleep(for: .milliseconds(300))
            let refusedAtOnce = silent.filter { $0.probe.closed != nil }.count
            #expect(refusedAtOnce == 50, "connections over the per-address cap of 100: \(refusedAtOnce) of 150 closed at once")
            #expect(kept.allSatisfy { $0.probe.received.hasPrefix("HTTP/1.1 200 OK") }, "a kept-alive request went unanswered")

            // /time from a fourth address, every 100 ms, until everything else has been closed.
            var statuses: [String] = []
            let start = ContinuousClock.now
            while ContinuousClock.now - start < .seconds(5) {
                statuses.append(await Self.time(port: port, from: "127.0.0.4"))
                if (silent + slow + kept).allSatisfy({ $0.probe.closed != nil }) { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(!statuses.isEmpty && statuses.allSatisfy { $0 == "HTTP/1.1 200 OK" }, "\(Set(statuses))")

            let admitted = silent.filter { $0.probe.lifetime.map { $0 > 0.5 } ?? true }
            #expect(admitted.count == 100)
            let silentLifetimes = admitted.compactMap(\.probe.lifetime)
            let slowLifetimes = slow.compactMap(\.probe.lifetime)
            let keptLifetimes = kept.compactMap(\.probe.lifetime)
            print(
                "connection limits (header 1 s, idle 2.5 s, 100 per address): \(refusedAtOnce) of 150 over the cap closed at once; "
                    + "closed after (s) silent \(Self.range(silentLifetimes)), slowloris \(Self.range(slowLifetimes)), "
                    + "kept-alive \(Self.range(keptLifetimes)); /time \(statuses.count) × \(Set(statuses))")
            #expect(silentLifetimes.count == 100 && silentLifetimes.allSatisfy { (0.9...2.5).contains($0) })
            #expect(slowLifetimes.count == 100 && slowLifetimes.allSatisfy { (0.9...2.5).contains($0) })
            // The idle timeout runs from the response, not the opening: well past the header timeout.
            #expect(keptLifetimes.count == 50 && keptLifetimes.allSatisfy { (2.3...4.5).contains($0) })
            for connection in silent + slow + kept { try? await connection.channel.close() }
        }
    }

    @Test("a full server closes the connection that waited longest for a request, so /time still answers")
    func fullServerMakesRoom() async throws {
        let limits = HTTPConnectionLimits(
            headerTimeout: .seconds(30), idleTimeout: .seconds(30), maximumConnections: 40, maximumConnectionsPerAddress: 100)
        try await Self.withServer(limits) { port in
            // Opened one by one, each admitted before the next: the order in which they waited is known.
            var idle: [(channel: any Channel, probe: Probe)] = []
            for _ in 0..<40 {
                idle.append(try await Self.connect(to: port, from: "127.0.0.1"))
                try await Task.sleep(for: .milliseconds(10))
            }
            try await Task.sleep(for: .milliseconds(200))
            #expect(idle.allSatisfy { $0.probe.closed == nil }, "the server closed connections below its cap")
            var statuses: [String] = []
            for _ in 0..<10 { statuses.append(await Self.time(port: port, from: "127.0.0.2")) }
            try await Task.sleep(for: .milliseconds(200))
            #expect(statuses.allSatisfy { $0 == "HTTP/1.1 200 OK" }, "\(statuses)")
            // The first /time connection took the place of the silent connection opened first (later
            // ones find the slot the previous one freed, unless its close is still being handled).
            let closed = idle.indices.filter { idle[$0].probe.closed != nil }
            #expect(!closed.isEmpty && closed == Array(0..<closed.count), "\(closed)")
            for connection in idle { try? await connection.channel.close() }
        }
    }

    @Test("stopping the server ends its kept-alive connections")
    func stoppingEndsConnections() async throws {
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = TimeSyncHTTPServer.application(
            host: "127.0.0.1", port: 0, limits: HTTPConnectionLimits(idleTimeout: .seconds(600)), logger: Self.quietLogger(),
            onServerRunning: { continuation.yield($0) })
        let server = Task { try await app.runService(gracefulShutdownSignals: []) }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())
        var kept: [(channel: any Channel, probe: Probe)] = []
        for _ in 0..<20 {
            let connection = try await Self.connect(to: port, from: "127.0.0.1")
            try await connection.channel.writeAndFlush(ByteBuffer(string: "GET /time HTTP/1.1\r\nHost: test\r\n\r\n"))
            kept.append(connection)
        }
        try await Task.sleep(for: .milliseconds(300))
        #expect(kept.allSatisfy { $0.probe.received.hasPrefix("HTTP/1.1 200 OK") && $0.probe.closed == nil })
        server.cancel()
        let deadline = ContinuousClock.now + .seconds(5)
        while kept.contains(where: { $0.probe.closed == nil }), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(kept.allSatisfy { $0.probe.closed != nil }, "connections outlived the server")
        for connection in kept { try? await connection.channel.close() }
    }

    static func range(_ values: [Double]) -> String {
        guard let low = values.min(), let high = values.max() else { return "none" }
        return String(format: "%.2f–%.2f", low, high)
    }
}
#endif
