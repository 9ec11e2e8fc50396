#if NTS
import Foundation
import NIOCore
import NIOEmbedded
import NIOPosix
import Testing
import TimeSync
import TimeSyncWire
import TimeSyncTesting
@testable import TimeSyncNTS

/// The key-exchange server's connection caps and deadline: the table alone, the deadline on
/// `EmbeddedChannel` (its clock moved by hand), and the caps on real loopback sockets, where a
/// connection over a cap is closed as soon as it is accepted, before any TLS.
@Suite struct NTSKEServerLimitsTests {
    /// A self-signed P-256 certificate for `localhost` and 127.0.0.1 (valid until 2126), and its key:
    /// for these tests only.
    static let certificatePEM = """
        -----BEGIN CERTIFICATE-----
        MIIBmjCCAUGgAwIBAgIUOkgGt81SDev0G5jkkfDRccYor7EwCgYIKoZIzj0EAwIw
        FDESMBAGA1UEAwwJbG9jYWxob3N0MCAXDTI2MTEyNjAwMjEwMFoYDzIxMjYxMTAy
        MDAyMTAwWjAUMRIwEAYDVQQDDAlsb2NhbGhvc3QwWTATBgcqhkjOPQIBBggqhkjO
        PQMBBwNCAASs1v35Jaw7y6tf1myjA5pwPnsYPHqlkbhWdYHkCA3zFEIeHJ6Pdjfw
        JMGwNiIrwouLLGtSMBkV7YL3vHMW/CnIo28wbTAdBgNVHQ4EFgQUTcfc77vUMeaA
        JoYjLVNnu25RBQUwHwYDVR0jBBgwFoAUTcfc77vUMeaAJoYjLVNnu25RBQUwDwYD
        VR0TAQH/BAUwAwEB/zAaBgNVHREEEzARgglsb2NhbGhvc3SHBH8AAAEwCgYIKoZI
        zj0EAwIDRwAwRAIgBJZawSqvNqY76bg9Qals4MekvBfdwQDOFgg6CjmqQ8wCIBih
        x7JlZilJAKS48GiWmfyfmG0847SbNOVNlBpWdJVI
        -----END CERTIFICATE-----
        """
    static let privateKeyPEM = """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg6suMzzi12T+yt/VU
        dqUCCHnwQwIG2e5BLFiDhNtVhC2hRANCAASs1v35Jaw7y6tf1myjA5pwPnsYPHql
        kbhWdYHkCA3zFEIeHJ6PdjfwJMGwNiIrwouLLGtSMBkV7YL3vHMW/CnI
        -----END PRIVATE KEY-----
        """

    /// The certificate and key written to a temporary directory.
    struct Credentials {
        let directory: String
        var certificate: String { directory + "/cert.pem" }
        var key: String { directory + "/key.pem" }

        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("nts-ke-limits-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try NTSKEServerLimitsTests.certificatePEM.write(toFile: directory + "/cert.pem", atomically: true, encoding: .utf8)
            try NTSKEServerLimitsTests.privateKeyPEM.write(toFile: directory + "/key.pem", atomically: true, encoding: .utf8)
        }

        func remove() { try? FileManager.default.removeItem(atPath: directory) }
    }

    static func address(_ text: String) -> NTSKEClientAddress? {
        (try? SocketAddress(ipAddress: text, port: 4460))?.withSockAddr { NTSKEClientAddress(sockaddr: $0, length: $1) }
    }

    // MARK: the table

    @Test func oneAddressIsRefusedBeyondItsCap() {
        var table = NTSKEConnectionTable<Int>(maximumConnections: 10, maximumConnectionsPerAddress: 2)
        let a = Self.address("192.0.2.1"), b = Self.address("192.0.2.2")
        guard case .admitted = table.admit(1, from: a), case .admitted = table.admit(2, from: a) else {
            Issue.record("the first two are admitted")
            return
        }
        guard case .overAddressLimit = table.admit(3, from: a) else {
            Issue.record("a third from the same address is refused")
            return
        }
        guard case .admitted = table.admit(4, from: b) else {
            Issue.record("another address is admitted")
            return
        }
        #expect(table.count == 3 && table.count(from: a!) == 2)
    }

    @Test func aFullTableClosesTheConnectionInItsExchangeLongest() {
        var table = NTSKEConnectionTable<Int>(maximumConnections: 3, maximumConnectionsPerAddress: 3)
        var ids: [NTSKEConnectionTable<Int>.ID] = []
        for handle in 0..<3 {
            guard case .admitted(let id) = table.admit(handle, from: Self.address("192.0.2.\(handle + 1)")) else {
                Issue.record("\(handle) is admitted")
                return
            }
            ids.append(id)
        }
        table.setClosable(ids[0], false)
        guard case .admittedClosing(_, let closed) = table.admit(10, from: Self.address("192.0.2.9")) else {
            Issue.record("a fourth takes a place")
            return
        }
        #expect(closed == 1, "the oldest still in its exchange, not the one being answered")
        #expect(table.count == 3 && table.count(from: Self.address("192.0.2.2")!) == 0)
        guard case .admittedClosing(_, 2) = table.admit(11, from: nil) else {
            Issue.record("the next oldest makes room next")
            return
        }
        guard case .admittedClosing(_, 10) = table.admit(12, from: nil) else {
            Issue.record("then the newcomer, now the oldest in its exchange")
            return
        }
        table.setClosable(ids[0], false)
        table.remove(ids[0])
        #expect(table.count == 2)
    }

    @Test func aTableOfAnsweredConnectionsRefusesTheNext() {
        var table = NTSKEConnectionTable<Int>(maximumConnections: 2, maximumConnectionsPerAddress: 2)
        for handle in 0..<2 {
            guard case .admitted(let id) = table.admit(handle, from: nil) else {
                Issue.record("admitted")
                return
            }
            table.setClosable(id, false)
        }
        guard case .full = table.admit(2, from: nil) else {
            Issue.record("full")
            return
        }
        #expect(table.count == 2)
    }

    @Test func anIPv6ClientCountsByItsSlash64AndAMappedAddressAsIPv4() {
        #expect(Self.address("2001:db8:1:2::1") == Self.address("2001:db8:1:2:ffff::9"))
        #expect(Self.address("2001:db8:1:2::1") != Self.address("2001:db8:1:3::1"))
        #expect(Self.address("::ffff:192.0.2.1") == Self.address("192.0.2.1"))
    }

    @Test func theConfigurationHasCapsByDefault() {
        let configuration = NTSKEServer.Configuration(certificateChainFile: "c", privateKeyFile: "k")
        #expect(configuration.maximumConnections == 100 && configuration.maximumConnectionsPerAddress == 8)
        #expect(configuration.connectionTimeout == .seconds(10))
        #expect(configuration.connectionRateLimit == 1 && configuration.connectionRateLimitBurst == 8)
        #expect(NTSKEServer.Configuration(certificateChainFile: "c", privateKeyFile: "k", maximumConnections: 0).maximumConnections == 1)
    }

    // MARK: the deadline, on EmbeddedChannel

    /// A connection that sends nothing (no TLS handshake, no request) is closed at the deadline, not
    /// before, counted as timed out; the table no longer counts it.
    @Test func anIdleConnectionIsClosedAtTheDeadline() throws {
        let credentials = try Credentials()
        defer { credentials.remove() }
        let server = try NTSKEServer(
            configuration: .init(
                port: 0, certificateChainFile: credentials.certificate, privateKeyFile: credentials.key, connectionTimeout: .seconds(5)),
            keys: try NTSServerKeys())
        let loop = EmbeddedEventLoop()
        let channel = EmbeddedChannel(loop: loop)
        try server.initialize(channel)
        try channel.connect(to: try SocketAddress(ipAddress: "192.0.2.1", port: 50_000)).wait()
        #expect(server.statistics.openConnections == 1)
        loop.advanceTime(by: .milliseconds(4_999))
        #expect(channel.isActive, "open until the deadline")
        loop.advanceTime(by: .milliseconds(1))
        #expect(!channel.isActive, "closed at the deadline")
        let statistics = server.statistics
        #expect(statistics.timedOut == 1 && statistics.failed == 1 && statistics.openConnections == 0)
        _ = try? channel.finish()
    }

    /// Over the per-address cap, the connection is closed in the initializer: no TLS handler is
    /// ever added to its pipeline.
    @Test func aConnectionOverTheCapGetsNoTLS() throws {
        let credentials = try Credentials()
        defer { credentials.remove() }
        let server = try NTSKEServer(
            configuration: .init(
                port: 0, certificateChainFile: credentials.certificate, privateKeyFile: credentials.key, maximumConnectionsPerAddress: 1),
            keys: try NTSServerKeys())
        let loop = EmbeddedEventLoop()
        let address = try SocketAddress(ipAddress: "192.0.2.1", port: 50_000)
        let first = EmbeddedChannel(loop: loop)
        try first.connect(to: address).wait()
        try server.initialize(first)
        let second = EmbeddedChannel(loop: loop)
        try second.connect(to: address).wait()
        #expect(throws: NTSKEServer.ConnectionRefused.self) { try server.initialize(second) }
        loop.run()
        #expect(!second.isActive && first.isActive)
        #expect(throws: (any Error).self) { try second.pipeline.syncOperations.handler(type: NTSKEServerHandler.self) }
        let statistics = server.statistics
        #expect(statistics.refusedConnections == 1 && statistics.openConnections == 1)
        _ = try? first.finish()
    }

    /// An address that reconnects without end gets its burst, then a connection a second; each
    /// one over is closed in the initializer, and another address is not touched.
    @Test func anAddressThatReconnectsIsLimitedByRate() throws {
        let credentials = try Credentials()
        defer { credentials.remove() }
        let timeBase = ManualTimeBase()
        let server = try NTSKEServer(
            configuration: .init(
                port: 0, certificateChainFile: credentials.certificate, privateKeyFile: credentials.key, maximumConnectionsPerAddress: 100,
                connectionRateLimit: 1, connectionRateLimitBurst: 3),
            keys: try NTSServerKeys(), timeBase: timeBase)
        let loop = EmbeddedEventLoop()
        func connect(from host: String) throws -> Bool {
            let channel = EmbeddedChannel(loop: loop)
            try channel.connect(to: try SocketAddress(ipAddress: host, port: 50_000)).wait()
            defer {
                channel.close(promise: nil)
                loop.run()
            }
            do {
                try server.initialize(channel)
                return true
            } catch is NTSKEServer.ConnectionRefused {
                return false
            }
        }
        #expect(try (0..<5).map { _ in try connect(from: "192.0.2.1") } == [true, true, true, false, false])
        #expect(try connect(from: "192.0.2.2"))
        timeBase.advance(by: .seconds(1))
        #expect(try (0..<2).map { _ in try connect(from: "192.0.2.1") } == [true, false])
        let statistics = server.statistics
        #expect(statistics.rateLimitedConnections == 3 && statistics.refusedConnections == 3 && statistics.openConnections == 0)
    }

    // MARK: real sockets

    /// Opens a TCP connection to `port` from `source` that sends nothing.
    static func idleConnection(to port: Int, from source: String, group: any EventLoopGroup) async throws -> any Channel {
        try await ClientBootstrap(group: group)
            .channelInitializer { $0.eventLoop.makeSucceededVoidFuture() }
            .bind(to: try SocketAddress(ipAddress: source, port: 0))
            .connect(host: "127.0.0.1", port: port).get()
    }

    /// Whether the server closes `channel` before `limit` passes (a bound on a test that fails, not
    /// a wait a passing test pays).
    static func closedByServer(_ channel: any Channel, within limit: Duration = .seconds(30)) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask { (try? await channel.closeFuture.get()) != nil || !channel.isActive }
            group.addTask {
                try? await Task.sleep(for: limit)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

    /// On loopback, with caps of 2 per address and 4 in all, on one event loop (so connections are
    /// admitted in the order they were opened): a third connection from one address is closed at
    /// once, the others stay open; a fifth connection in all takes the place of the oldest; and a
    /// real key exchange through the full server succeeds.
    @Test(.timeLimit(.minutes(1))) func theCapsHoldOnRealSockets() async throws {
        let credentials = try Credentials()
        defer { credentials.remove() }
        let serverGroup = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let clientGroup = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        defer {
            serverGroup.shutdownGracefully { _ in }
            clientGroup.shutdownGracefully { _ in }
        }
        let server = try NTSKEServer(
            configuration: .init(
                port: 0, certificateChainFile: credentials.certificate, privateKeyFile: credentials.key, maximumConnections: 4,
                maximumConnectionsPerAddress: 2),
            keys: try NTSServerKeys(), group: serverGroup)
        let running = Task { try await server.run() }
        defer { running.cancel() }
        let port = try #require(try await server.localAddress().port)

        var open: [any Channel] = []
        for _ in 0..<2 { open.append(try await Self.idleConnection(to: port, from: "127.0.0.1", group: clientGroup)) }
        let third = try await Self.idleConnection(to: port, from: "127.0.0.1", group: clientGroup)
        #expect(await Self.closedByServer(third), "a third connection from one address is closed")
        #expect(open.allSatisfy { $0.isActive })
        #expect(server.statistics.refusedConnections == 1 && server.statistics.openConnections == 2)

        for _ in 0..<2 { open.append(try await Self.idleConnection(to: port, from: "127.0.0.2", group: clientGroup)) }
        let fifth = try await Self.idleConnection(to: port, from: "127.0.0.3", group: clientGroup)
        #expect(await Self.closedByServer(open[0]), "the oldest makes room for a fifth")
        #expect(fifth.isActive && open[1...].allSatisfy { $0.isActive })
        #expect(server.statistics.evictedConnections == 1 && server.statistics.openConnections == 4)

        let exchange = try await NTSKeyExchange(host: "127.0.0.1", port: port, trust: .init(additionalAuthorities: [credentials.certificate]))
            .perform(timeout: .seconds(10), group: clientGroup)
        #expect(exchange.response.cookies.count == NTSKEResponse.maximumCookies, "a key exchange through a full server is served")
        #expect(server.statistics.exchanges == 1 && server.statistics.evictedConnections == 2)
        for channel in open + [fifth] { try? await channel.close() }
        running.cancel()
        _ = try? await running.value
    }
}
#endif
