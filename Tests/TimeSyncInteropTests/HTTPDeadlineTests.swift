#if CLI
import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOPosix
import Testing
import TimeSync
import TimeSyncWire
import TimeSyncTestSupport
import TimeSyncAsyncHTTPClient
import TimeSyncHTTP

/// Waits on real sockets: one deadline covers the whole exchange, body included, and a refused
/// connection fails at once.
@Suite("HTTP exchange deadlines on loopback", .serialized)
struct HTTPDeadlineTests {
    @Test("a server that sends its head and stalls the body times out at the deadline, saying so")
    func stalledBody() async throws {
        let server = try await StallingServer.start()
        let client = HTTPTimeSource.makeClient()
        let timeBase = SystemTimeBase()
        do {
            let source = try HTTPTimeSource(
                url: "http://127.0.0.1:\(server.port)/", client: client, timeBase: timeBase, timeout: .milliseconds(500),
                logger: Logger(label: "test"))
            let started = timeBase.monotonicNow()
            do {
                _ = try await source.exchange()
                Issue.record("a stalled body completed")
            } catch let error as HTTPTimeError {
                #expect(error.code == .timeout)
                #expect(error.description.contains("the body did not complete"), "\(error)")
            }
            let waited = started.duration(to: timeBase.monotonicNow())
            #expect(waited >= .milliseconds(500) && waited < .seconds(3), "waited \(waited)")
            #expect(server.requests >= 1)
        }
        try await client.shutdown()
        await server.close()
    }

    @Test("a server that never answers times out at the deadline, saying no head arrived")
    func silentServer() async throws {
        let server = try await StallingServer.start(sendHead: false)
        let client = HTTPTimeSource.makeClient()
        let source = try HTTPTimeSource(
            url: "http://127.0.0.1:\(server.port)/", client: client, timeBase: SystemTimeBase(), timeout: .milliseconds(300), logger: Logger(label: "test"))
        await #expect(throws: (any Error).self) { try await source.exchange() }
        do {
            _ = try await source.exchange()
        } catch let error as HTTPTimeError {
            #expect(error.code == .timeout)
            #expect(error.description.contains("no response head"), "\(error)")
        } catch {
            // AsyncHTTPClient's own deadline (the same instant) may win the race for the head.
            #expect("\(error)".lowercased().contains("deadline") || "\(error)".lowercased().contains("timeout"), "\(error)")
        }
        try await client.shutdown()
        await server.close()
    }

    @Test("a refused connection fails at once, not at the deadline")
    func refusedConnection() async throws {
        let port = try freeLoopbackPort()
        let client = HTTPTimeSource.makeClient()
        let timeBase = SystemTimeBase()
        let source = try HTTPTimeSource(
            url: "http://127.0.0.1:\(port)/", client: client, timeBase: timeBase, timeout: .seconds(10), logger: Logger(label: "test"))
        let started = timeBase.monotonicNow()
        await #expect(throws: (any Error).self) { try await source.exchange() }
        #expect(started.duration(to: timeBase.monotonicNow()) < .seconds(5))
        try await client.shutdown()
    }

    @Test("timesync query --json prints a JSON error object on stdout and exits non-zero; text goes to stderr")
    func jsonFailure() async throws {
        guard let binary = Interop.timesyncBinary() else {
            #expect(!Interop.required, "no timesync binary")
            return
        }
        let server = try await StallingServer.start()
        defer { Task { await server.close() } }
        let url = "http://127.0.0.1:\(server.port)/"
        let json = try await ChildProcess.run(binary, ["query", "--json", "--timeout", "0.5", "--samples", "1", url])
        #expect(json.status == 1, "\(json)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any], "\(json.stdout)")
        #expect(object["errorType"] as? String == "timeout")
        #expect((object["help"] as? String)?.contains("--timeout") == true, "\(object)")
        #expect((object["error"] as? String)?.contains("no complete response in time") == true, "\(object)")
        #expect(object["url"] as? String == url)
        let text = try await ChildProcess.run(binary, ["query", "--timeout", "0.5", "--samples", "1", url])
        #expect(text.status == 1)
        #expect(text.stdout.isEmpty)
        #expect(text.stderr.contains("no complete response in time"), "\(text.stderr)")
    }
}

/// A TCP server on loopback that reads a request and then answers with a response head announcing a
/// 1000-byte body, sends 10 bytes of it and stalls (or, with `sendHead: false`, sends nothing).
final class StallingServer: Sendable {
    let channel: any Channel
    let port: Int
    private let counter: Counter

    final class Counter: Sendable {
        private let value = Locked(0)
        func increment() { value.withLock { $0 += 1 } }
        var count: Int { value.withLock { $0 } }
    }

    var requests: Int { counter.count }

    private init(channel: any Channel, counter: Counter) {
        self.channel = channel
        self.port = channel.localAddress!.port!
        self.counter = counter
    }

    static func start(sendHead: Bool = true) async throws -> StallingServer {
        let counter = Counter()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(Handler(sendHead: sendHead, counter: counter))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return StallingServer(channel: channel, counter: counter)
    }

    func close() async {
        try? await channel.close()
    }

    final class Handler: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        let sendHead: Bool
        let counter: Counter
        var answered = false
        init(sendHead: Bool, counter: Counter) {
            self.sendHead = sendHead
            self.counter = counter
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard !answered else { return }
            answered = true
            counter.increment()
            guard sendHead else { return }
            let date = HTTPDate.imfFixdate(SystemTimeBase().wallNow())
            let head = "HTTP/1.1 200 OK\r\nDate: \(date)\r\nContent-Length: 1000\r\nContent-Type: text/plain\r\n\r\n0123456789"
            context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: head)), promise: nil)
        }
    }
}
#endif
