#if CLI
import Foundation
import NIOCore
import NIOPosix
import Testing
import TimeSync
import TimeSyncSockets
import TimeSyncWire
import TimeSyncNTP
import TimeSyncNTPServer
import TimeSyncServerSupport

/// A pool source on `clock` polling loopback `ports` in a quick burst, with its events in `events`.
package func loopbackPoolSource(
    ports: [Int], clock: ServerClock, events: EventLog, burst: Int, interval: Duration = .milliseconds(10),
    timeout: Duration
) -> NTPPoolSource {
    NTPPoolSource(
        clock: clock,
        configuration: NTPPoolConfiguration(
            servers: ports.map { NTPServerAddress(host: "127.0.0.1", port: $0) },
            policy: PollPolicy(burstCount: burst, burstInterval: interval), timeout: timeout),
        onEvent: { events.append($0) })
}

/// Runs an NTP server on a free loopback port for the duration of `body`.
///
/// The server's host is unsynchronized (a fixed kernel state, so that results do not depend on this
/// machine's) and the server opts in to serving it at local stratum 1, as an operator would, unless
/// the configuration sets another local stratum.
package func withNTPServer<T: Sendable>(
    _ configuration: NTPServerConfiguration = NTPServerConfiguration(host: "127.0.0.1", port: 0, localStratum: 1),
    timeBase: any TimeBase = SystemTimeBase(),
    _ body: @Sendable (NTPServer, SocketAddress) async throws -> T
) async throws -> T {
    var configuration = configuration
    configuration.port = 0
    if configuration.localStratum == nil { configuration.localStratum = 1 }
    let server = NTPServer(configuration: configuration, timeBase: timeBase, kernelClock: FakeKernelClock(.unknown))
    return try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await server.run() }
        defer { group.cancelAll() }
        let address = try await server.localAddress()
        return try await body(server, address)
    }
}

/// A crafted NTP server: answers each datagram with whatever `respond` returns (any bytes, any
/// number of datagrams).
package final class FakeNTPServer: Sendable {
    package typealias Responder = @Sendable (_ request: NTPPacket) -> [[UInt8]]

    package let channel: any Channel
    package let address: SocketAddress

    private init(channel: any Channel) {
        self.channel = channel
        self.address = channel.localAddress!
    }

    package static func start(host: String = "127.0.0.1", port: Int = 0, _ respond: @escaping Responder) async throws -> FakeNTPServer {
        let channel = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(Handler(respond: respond))
                }
            }
            .bind(host: host, port: port).get()
        return FakeNTPServer(channel: channel)
    }

    package func close() async {
        try? await channel.close()
    }

    final class Handler: ChannelInboundHandler {
        typealias InboundIn = AddressedEnvelope<ByteBuffer>
        typealias OutboundOut = AddressedEnvelope<ByteBuffer>
        let respond: Responder
        init(respond: @escaping Responder) { self.respond = respond }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let envelope = unwrapInboundIn(data)
            guard let request = try? NTPPacket(decoding: envelope.data.readableBytesView) else { return }
            for reply in respond(request) {
                context.write(
                    wrapOutboundOut(AddressedEnvelope(remoteAddress: envelope.remoteAddress, data: ByteBuffer(bytes: reply))),
                    promise: nil)
            }
            context.flush()
        }
    }
}

/// A well-formed server reply to `request`, stamped from the system wall clock plus `shift`.
package func goodReply(to request: NTPPacket, shift: Duration = .zero) -> NTPPacket {
    let now = SystemTimeBase().wallNow().advanced(by: shift)
    return NTPServerResponder.reply(
        to: request, policy: NTPServerPolicy(stratum: 2, referenceID: NTPReferenceID(ipv4: 192, 0, 2, 1)),
        receivedAt: now, transmitAt: now)
}

/// A free UDP port on loopback: bind port 0, read the port, close.
package func freeUDPPort() async throws -> Int {
    let channel = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton).bind(host: "127.0.0.1", port: 0).get()
    let port = channel.localAddress!.port!
    try await channel.close()
    return port
}

/// A child process in its own process group (for one that starts others: `faketime` runs
/// `chronyd` as a child), with standard output and error captured to a file.
///
/// Spawned with `posix_spawn` and reaped with `waitpid`, so that stopping it also stops whatever it
/// started (`faketime` runs `chronyd` as a child).
package final class ChildProcessGroup {
    package let pid: pid_t
    package let outputPath: String
    private var status: Int32?

    package init(_ executable: String, _ arguments: [String], environment: [String: String] = [:], outputPath: String) throws {
        var fileActions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&fileActions)
        defer { posix_spawn_file_actions_destroy(&fileActions) }
        posix_spawn_file_actions_addopen(&fileActions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&fileActions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&fileActions, 1, 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)
        let environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }.map { "\($0)=\($1)" }
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid = pid_t()
        let result = posix_spawn(&pid, executable, &fileActions, &attributes, argv, envp)
        guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EPERM) }
        self.pid = pid
        self.outputPath = outputPath
    }

    package var output: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }

    /// The exit code once the process has exited (−signal when killed), `nil` while it runs.
    package func poll() -> Int32? {
        if let status { return status }
        var raw: Int32 = 0
        guard waitpid(pid, &raw, WNOHANG) == pid else { return nil }
        let signal = raw & 0x7F
        status = signal == 0 ? (raw >> 8) & 0xFF : -signal
        return status
    }

    /// Stops the whole process group: SIGTERM, then SIGKILL after a second; reaps the process.
    package func stop() {
        guard poll() == nil else {
            kill(-pid, SIGKILL)  // children it left behind
            return
        }
        kill(-pid, SIGTERM)
        for _ in 0..<50 where poll() == nil { usleep(20_000) }
        kill(-pid, SIGKILL)
        while poll() == nil { usleep(10_000) }
    }

    /// Waits for the process to exit by itself, up to `timeout`; stops it after that.
    package func wait(timeout: Duration) async -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while poll() == nil && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(50))
        }
        if let status = poll() { return status }
        stop()
        return nil
    }
}

/// A fresh temporary directory.
package func makeTemporaryDirectory() throws -> String {
    let path = NSTemporaryDirectory() + "timesync-ntp-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// An array behind a lock, for collecting events from other tasks.
package final class LockedArray<Element: Sendable>: Sendable {
    private let items = Locked<[Element]>([])

    package init() {}

    package func append(_ item: Element) { items.withLock { $0.append(item) } }
    package var snapshot: [Element] { items.withLock { $0 } }
}

/// Writes `directory/chrony.conf`: chronyd serving on 127.0.0.1:`port` at local stratum 3 (this host
/// need not be synchronized), no command port, its pid and drift files in `directory`.
package func writeChronyConfiguration(port: Int, directory: String) throws {
    let configuration = """
        port \(port)
        bindaddress 127.0.0.1
        allow 127.0.0.1
        local stratum 3
        cmdport 0
        bindcmdaddress /
        pidfile \(directory)/chronyd.pid
        driftfile \(directory)/chrony.drift
        """
    try configuration.write(toFile: "\(directory)/chrony.conf", atomically: true, encoding: .utf8)
}

/// A kernel clock whose state the test sets, counting how often the server reads it.
package final class FakeKernelClock: KernelClock {
    private let stored: Locked<(state: NTPClockState?, reads: Int)>

    package init(_ state: NTPClockState?) { stored = Locked((state, 0)) }

    package func clockState() -> NTPClockState? {
        stored.withLock {
            $0.reads += 1
            return $0.state
        }
    }

    /// The state the next reading returns.
    package var state: NTPClockState? {
        get { stored.withLock { $0.state } }
        set { stored.withLock { $0.state = newValue } }
    }

    /// How many times the server read the state.
    package var reads: Int { stored.withLock { $0.reads } }
}

extension NTPPoolEvent {
    package var isSample: Bool { if case .sample = self { true } else { false } }
    package var isKiss: Bool { if case .kissOfDeath = self { true } else { false } }
    package var isStop: Bool { if case .kissOfDeath(_, _, nil) = self { true } else { false } }
    package var isOutcome: Bool {
        switch self {
        case .sample, .failed, .kissOfDeath: true
        default: false
        }
    }
}

/// Collects pool events; tests wait on a condition (no sleeps with expectations on timing).
package final class EventLog: Sendable {
    private let events = LockedArray<NTPPoolEvent>()

    package init() {}

    package func append(_ event: NTPPoolEvent) { events.append(event) }
    package var all: [NTPPoolEvent] { events.snapshot }

    /// Polls the log until `condition` holds; fails the test after 20 s.
    package func wait(_ condition: ([NTPPoolEvent]) -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while !condition(all) {
            guard ContinuousClock.now < deadline else {
                Issue.record("condition not reached; events: \(all)")
                return
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}

/// Sends raw bytes and returns the first datagram back.
package func roundTrip(_ bytes: [UInt8], to address: SocketAddress) async throws -> [UInt8] {
    let (stream, continuation) = AsyncStream.makeStream(of: [UInt8].self)
    let channel = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .channelInitializer { channel in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHandler(Collector(continuation: continuation))
            }
        }
        .bind(host: "127.0.0.1", port: 0).get()
    defer { channel.close(promise: nil) }
    try await channel.writeAndFlush(AddressedEnvelope(remoteAddress: address, data: ByteBuffer(bytes: bytes)))
    let timeout = channel.eventLoop.scheduleTask(in: .seconds(2)) { continuation.finish() }
    defer { timeout.cancel() }
    for await datagram in stream { return datagram }
    throw NTPClientError.timeout
}

package final class Collector: ChannelInboundHandler {
    package typealias InboundIn = AddressedEnvelope<ByteBuffer>
    package let continuation: AsyncStream<[UInt8]>.Continuation
    package init(continuation: AsyncStream<[UInt8]>.Continuation) { self.continuation = continuation }
    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        continuation.yield(Array(unwrapInboundIn(data).data.readableBytesView))
    }
}
#endif

#if CLI
extension NTPClient {
    /// An exchange with a SwiftNIO socket's address (a test server's bound address).
    package func exchange(
        with address: SocketAddress, timeout: Duration, conflictWindow: ConflictWindow = .query
    ) async throws -> NTPReply {
        guard let endpoint = IPEndpoint(address) else { throw NTPClientError.invalidServerAddress }
        return try await exchange(with: endpoint, timeout: timeout, conflictWindow: conflictWindow)
    }
}
#endif
