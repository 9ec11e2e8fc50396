#if CLI
import Foundation
import NIOCore
import NIOConcurrencyHelpers
import NIOPosix
import Testing
import TimeSync
import TimeSyncWire
import TimeSyncFixtures
import TimeSyncNTP
import TimeSyncNTPServer
import TimeSyncNTS
import TimeSyncTestSupport

/// NTS (RFC 8915) for real: our client and chrony's server, chrony's client and our server, ours
/// against ours, a two-process fleet sharing master keys, and a relay that tampers with replies.
@Suite(.serialized) struct NTSInteropTests {
    /// A self-signed P-256 certificate for `localhost` and 127.0.0.1, made with openssl.
    struct Credentials {
        let directory: String
        var certificate: String { directory + "/cert.pem" }
        var key: String { directory + "/key.pem" }

        init() throws {
            directory = try makeTemporaryDirectory()
            let openssl = try #require(Interop.find("openssl"), "openssl is missing: run scripts/install-test-deps")
            let process = Process()
            process.executableURL = URL(fileURLWithPath: openssl)
            process.arguments = [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", directory + "/key.pem",
                "-out", directory + "/cert.pem", "-days", "2", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
            ]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "openssl could not make a certificate")
        }
    }

    /// Our NTP server answering NTS (clock shifted by `shift`) and our key-exchange server naming
    /// `ntpPort(server port)` as the NTP port, for the duration of `body`.
    static func withOurServers<T: Sendable>(
        shift: Duration, credentials: Credentials, keys: NTSServerKeys? = nil,
        ntpPort: @Sendable (Int) async throws -> Int = { $0 },
        _ body: @Sendable (_ ntp: NTPServer, _ keyExchange: NTSKEServer, _ keyExchangePort: Int) async throws -> T
    ) async throws -> T {
        let keys = try keys ?? NTSServerKeys()
        let ntp = NTPServer(
            configuration: NTPServerConfiguration(host: "127.0.0.1", port: 0, localStratum: 1, rateLimit: .infinity),
            timeBase: ShiftedTimeBase(shift: shift), kernelClock: FakeKernelClock(.unknown), authenticator: keys)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await ntp.run() }
            defer { group.cancelAll() }
            let port = try await ntp.localAddress().port!
            let named = try await ntpPort(port)
            let keyExchange = try NTSKEServer(
                configuration: .init(
                    host: "127.0.0.1", port: 0, certificateChainFile: credentials.certificate, privateKeyFile: credentials.key,
                    ntpPort: UInt16(named)),
                keys: keys)
            group.addTask { try await keyExchange.run() }
            let kePort = try await keyExchange.localAddress().port!
            return try await body(ntp, keyExchange, kePort)
        }
    }

    static func client(_ port: Int, _ credentials: Credentials, maximumKeyAge: Duration = .seconds(3600)) -> NTSClient {
        NTSClient(
            host: "127.0.0.1", port: port,
            configuration: .init(trust: .init(additionalAuthorities: [credentials.certificate]), maximumKeyAge: maximumKeyAge))
    }

    /// Server time − this machine's wall clock from `count` exchanges, combined.
    static func offset(of client: NTSClient, count: Int = 4) async throws -> (offset: Duration, error: Duration) {
        var samples: [OffsetSample] = []
        for _ in 0..<count {
            samples.append(try await client.exchange(timeout: .seconds(2)).reply.sample(source: "nts"))
        }
        let consensus = try SampleConsensus(samples)
        let wall = WallClockOffset(consensus.calibration, pair: SystemTimeBase().wallClockPair())
        return (wall.estimate, wall.error)
    }

    static var chronyPrivileges: [String] { geteuid() == 0 ? ["-u", "root"] : ["-U"] }

    // MARK: our client, chrony's server

    /// chronyd 4.3 as an NTS-KE and NTS server, its clock 1.5 s ahead (libfaketime); our client finds
    /// the shift within 2 ms, through `timesync query nts://` as a user would.
    @Test(.enabled(if: Interop.shouldRun(["chronyd", "faketime", "openssl"])), .timeLimit(.minutes(1)))
    func ourClientAgainstChronysNTSServer() async throws {
        let chronyd = try #require(Interop.chronyd, "chronyd is missing: run scripts/install-test-deps")
        #expect(Interop.libfaketime() != nil, "libfaketime is missing: run scripts/install-test-deps")
        let binary = try #require(Interop.timesyncBinary(), "build the timesync command: swift build --traits CLI")
        let credentials = try Credentials()
        defer { try? FileManager.default.removeItem(atPath: credentials.directory) }
        let directory = credentials.directory
        let port = try await freeUDPPort()
        let kePort = try await freeUDPPort()
        try FileManager.default.createDirectory(atPath: directory + "/dump", withIntermediateDirectories: true)
        try """
            bindaddress 127.0.0.1
            bindaddress ::1
            port \(port)
            ntsport \(kePort)
            allow 127.0.0.1
            local stratum 1
            ntsserverkey \(credentials.key)
            ntsservercert \(credentials.certificate)
            ntsdumpdir \(directory)/dump
            ntsprocesses 0
            cmdport 0
            pidfile \(directory)/chronyd.pid
            """.write(toFile: directory + "/chrony.conf", atomically: true, encoding: .utf8)
        let chrony = try ChildProcessGroup(
            chronyd, ["-x", "-d"] + Self.chronyPrivileges + ["-f", directory + "/chrony.conf"],
            environment: try Interop.fakeTimeEnvironment("+1.5s"), outputPath: directory + "/chronyd.log")
        defer { chrony.stop() }
        var run: (status: Int32, stdout: String, stderr: String) = (-1, "", "")
        for _ in 0..<40 {
            run = try await ChildProcess.run(
                binary, ["query", "nts://127.0.0.1:\(kePort)", "--ca-file", credentials.certificate, "--samples", "4", "--json"])
            if run.status == 0 { break }
            try await Task.sleep(for: .milliseconds(100))  // chronyd binds its ports
        }
        #expect(run.status == 0, "\(run.stdout) \(run.stderr)\n\(chrony.output)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let offset = try #require(report["offset"] as? Double)
        print("our NTS client against chronyd (faketime +1.5 s): offset \(offset) s, error vs 1.5 s \((offset - 1.5) * 1e3) ms, key exchange \(report["keyExchange"] ?? "?") s")
        #expect(abs(offset - 1.5) < 0.002, "\(run.stdout)")
        #expect(report["authenticated"] as? Bool == true)
        #expect(report["ntpServer"] as? String == "127.0.0.1:\(port)", "chrony names its NTP port in the key exchange")
    }

    // MARK: chrony's client, our server

    /// `chronyd -Q` with `nts` against our servers (clock 0.75 s behind): chrony finds the shift within
    /// 2 ms, and every reply it used was authenticated.
    @Test(.enabled(if: Interop.shouldRun(["chronyd", "openssl"])), .timeLimit(.minutes(1)))
    func chronysNTSClientAgainstOurServer() async throws {
        let chronyd = try #require(Interop.chronyd, "chronyd is missing: run scripts/install-test-deps")
        let credentials = try Credentials()
        defer { try? FileManager.default.removeItem(atPath: credentials.directory) }
        let directory = credentials.directory
        try await Self.withOurServers(shift: .milliseconds(-750), credentials: credentials) { ntp, keyExchange, kePort in
            let port = try await ntp.localAddress().port!
            try FileManager.default.createDirectory(atPath: directory + "/client-dump", withIntermediateDirectories: true)
            try """
                server 127.0.0.1 port \(port) nts ntsport \(kePort) iburst maxsamples 4
                ntstrustedcerts \(credentials.certificate)
                ntsdumpdir \(directory)/client-dump
                """.write(toFile: directory + "/client.conf", atomically: true, encoding: .utf8)
            let chrony = try ChildProcessGroup(
                chronyd, ["-Q", "-t", "20"] + Self.chronyPrivileges + ["-f", directory + "/client.conf"], outputPath: directory + "/client.log")
            defer { chrony.stop() }
            let status = await chrony.wait(timeout: .seconds(30))
            #expect(status == 0, "\(chrony.output)")
            let wrong = try #require(ChronyNTPTests.systemClockWrongBy(chrony.output), "no 'System clock wrong by' in: \(chrony.output)")
            let statistics = try await ntp.statistics()
            print("chronyd -Q (NTS) against our server shifted -0.75 s: System clock wrong by \(wrong) s, error \((wrong + 0.75) * 1e3) ms; \(statistics.authenticatedReplies) authenticated replies, \(keyExchange.statistics.exchanges) key exchange(s)")
            #expect(abs(wrong + 0.75) < 0.002, "\(chrony.output)")
            #expect(statistics.authenticatedReplies >= 1 && statistics.authenticatedReplies == statistics.replied, "\(statistics)")
            #expect(keyExchange.statistics.exchanges == 1)
        }
    }

    // MARK: ours against ours

    /// Our client against our servers (clock 0.25 s ahead): the shift within 2 ms; one key exchange
    /// for many exchanges, the cookie jar kept full; a key rotation that drops the client's keys gets an
    /// NTS NAK, and the client makes a new key exchange and goes on.
    @Test(.enabled(if: Interop.shouldRun(["openssl"])), .timeLimit(.minutes(1)))
    func ourClientAgainstOurServer() async throws {
        let credentials = try Credentials()
        defer { try? FileManager.default.removeItem(atPath: credentials.directory) }
        let keys = try NTSServerKeys(configuration: .init(retainedKeys: 2))
        try await Self.withOurServers(shift: .milliseconds(250), credentials: credentials, keys: keys) { ntp, _, kePort in
            let client = Self.client(kePort, credentials)
            let measured = try await Self.offset(of: client, count: 6)
            print("our NTS client against our server shifted +0.25 s: offset \(measured.offset), error vs 0.25 s \(Double((measured.offset - .milliseconds(250)).nanosecondsClamped) / 1e6) ms, ±\(measured.error); key exchange \(client.statistics.lastKeyExchangeDuration.map { "\($0)" } ?? "?")")
            #expect(abs((measured.offset - .milliseconds(250)).nanosecondsClamped) < 2_000_000)
            #expect(client.statistics.keyExchanges == 1)
            #expect(client.statistics.cookies == 8, "each reply replaced the cookie spent")
            #expect(client.statistics.droppedTotal == 0)
            // Two rotations with two keys kept: the client's cookies are under a key no longer held.
            try keys.rotate()
            try keys.rotate()
            await expectThrows(NTSReplyError.negativeAcknowledgment) { try await client.exchange(timeout: .seconds(1)) }
            let renewed = try await client.exchange(timeout: .seconds(2))
            #expect(renewed.keyExchange != nil, "a new key exchange after the NAK")
            #expect(client.statistics.keyExchanges == 2)
            #expect(try await ntp.statistics().negativeAcknowledgments == 1)
        }
    }

    /// An untrusted certificate: a clear error, no key exchange; the CLI names the cause and the fix.
    @Test(.enabled(if: Interop.shouldRun(["openssl"])), .timeLimit(.minutes(1)))
    func anUntrustedCertificateIsAClearError() async throws {
        let credentials = try Credentials()
        defer { try? FileManager.default.removeItem(atPath: credentials.directory) }
        try await Self.withOurServers(shift: .zero, credentials: credentials) { _, keyExchange, kePort in
            let client = NTSClient(host: "127.0.0.1", port: kePort)
            await expectThrows(NTSKEError.untrustedCertificate) { try await client.exchange(timeout: .seconds(2)) }
            #expect(client.statistics.keyExchanges == 0)
            if let binary = Interop.timesyncBinary() {
                let run = try await ChildProcess.run(binary, ["query", "nts://127.0.0.1:\(kePort)", "--json"])
                print("query with an untrusted certificate: exit \(run.status), \(run.stdout)")
                #expect(run.status == 1)
                #expect(run.stdout.contains("\"errorType\":\"tlsFailure\"") && run.stdout.contains("not trusted") && run.stdout.contains("--ca-file"))
            }
            #expect(keyExchange.statistics.exchanges == 0)
        }
    }

    /// `timesync watch nts://` on our servers (clock 0.25 s ahead): synchronized, within 2 ms.
    @Test(.enabled(if: Interop.shouldRun(["openssl"]) && Interop.timesyncBinary() != nil), .timeLimit(.minutes(1)))
    func watchKeepsAClockOnAnNTSServer() async throws {
        let credentials = try Credentials()
        defer { try? FileManager.default.removeItem(atPath: credentials.directory) }
        try await Self.withOurServers(shift: .milliseconds(250), credentials: credentials) { ntp, _, kePort in
            let result = try await WatchInteropTests.watch([
                "nts://127.0.0.1:\(kePort)", "--ca-file", credentials.certificate, "--duration", "3", "--timeout", "1",
            ])
            let last = try #require(result.updates.last, "no update: \(result.stderr)")
            print("watch nts:// on our server shifted +0.25 s: \(result.updates.count) updates, last \(last.status) offset \(last.offset ?? .nan) s ± \(last.error ?? .nan) s, \(last.sources.map { "\($0.source) \($0.state)" })")
            #expect(result.status == 0, "\(result.stderr)")
            #expect(last.status == "synchronized")
            #expect(abs(try #require(last.offset) - 0.25) < 0.002)
            #expect(last.sources.first?.source == "nts://127.0.0.1:\(kePort)")
            #expect(try await ntp.statistics().authenticatedReplies >= 1)
        }
    }

    /// Our key-exchange server given a malformed or unacceptable request: an Error record or a refusal,
    /// the connection closed, the server unharmed (a good exchange follows).
    @Test(.enabled(if: Interop.shouldRun(["openssl"])), .timeLimit(.minutes(1)))
    func theKeyExchangeServerRefusesBadRequests() async throws {
        let credentials = try Credentials()
        defer { try? FileManager.default.removeItem(atPath: credentials.directory) }
        try await Self.withOurServers(shift: .zero, credentials: credentials) { _, keyExchange, kePort in
            let exchange = NTSKeyExchange(host: "127.0.0.1", port: kePort, trust: .init(additionalAuthorities: [credentials.certificate]))
            let unknownCritical = NTSKERecord.encode([.nextProtocol([0]), NTSKERecord(type: 0x1234, isCritical: true), .endOfMessage])
            #expect(try await exchange.records(sending: unknownCritical, timeout: .seconds(2)) == [.error(.unrecognizedCriticalRecord)])
            let noProtocol = NTSKERecord.encode([.aeadAlgorithm([15]), .endOfMessage])
            #expect(try await exchange.records(sending: noProtocol, timeout: .seconds(2)) == [.error(.badRequest)])
            let otherAlgorithm = NTSKERecord.encode([.nextProtocol([0]), .aeadAlgorithm([30]), .endOfMessage])
            #expect(try await exchange.records(sending: otherAlgorithm, timeout: .seconds(2)) == [.nextProtocol([0]), .aeadAlgorithm([])])
            let oversized = NTSKERecord.encode([NTSKERecord(type: 0x0100, isCritical: false, body: [UInt8](repeating: 1, count: 2000))])
            #expect(try await exchange.records(sending: oversized, timeout: .seconds(2)) == [.error(.badRequest)])
            // A request that never ends: the server closes the connection at its deadline.
            await #expect(throws: NTSKEError.self) {
                try await exchange.records(sending: NTSKERecord.encode([.nextProtocol([0])]), timeout: .milliseconds(500))
            }
            #expect(keyExchange.statistics.refused == 4)
            _ = try await exchange.perform(timeout: .seconds(2))
            #expect(keyExchange.statistics.exchanges == 1)
        }
    }

    // MARK: a relay that tampers

    enum Tampering: String, CaseIterable, Sendable {
        /// One byte of every reply flipped.
        case flip
        /// Every reply after the first replaced by the first.
        case replay
        /// Every reply's extension fields removed.
        case strip
        /// A forged reply (the genuine one with its transmit time 1000 s later) sent before each genuine one.
        case race
    }

    /// Between our client and our NTP server, a relay alters the replies: nothing it makes becomes a
    /// sample, and the failure is reported (counted, and thrown when nothing genuine came through).
    @Test(.enabled(if: Interop.shouldRun(["openssl"])), .timeLimit(.minutes(1)), arguments: Tampering.allCases)
    func aTamperingRelayNeverMakesASample(_ tampering: Tampering) async throws {
        let credentials = try Credentials()
        defer { try? FileManager.default.removeItem(atPath: credentials.directory) }
        let relay = TamperingRelay.Box()
        try await Self.withOurServers(
            shift: .zero, credentials: credentials,
            ntpPort: { port in
                let started = try await TamperingRelay.start(upstream: try SocketAddress(ipAddress: "127.0.0.1", port: port), tampering: tampering)
                relay.set(started)
                return started.port
            }
        ) { ntp, _, kePort in
            let client = Self.client(kePort, credentials)
            defer { Task { await relay.get()?.close() } }
            switch tampering {
            case .flip:
                await expectThrows(NTSReplyError.authenticationFailed) { try await client.exchange(timeout: .seconds(1)) }
            case .strip:
                await expectThrows(NTSReplyError.unauthenticated) { try await client.exchange(timeout: .seconds(1)) }
            case .replay:
                _ = try await client.exchange(timeout: .seconds(1))  // the first reply passes untouched
                await expectThrows(NTSReplyError(ntp: .originMismatch)) { try await client.exchange(timeout: .seconds(1)) }
            case .race:
                let exchange = try await client.exchange(timeout: .seconds(1))
                let offset = try exchange.reply.sample(source: "race").offset.midpoint
                #expect(abs(offset - (SystemTimeBase().wallNow().nanoseconds - SystemTimeBase().monotonicNow().nanoseconds)) < 50_000_000, "the genuine reply, not the forgery")
                #expect(exchange.dropped.map(\.code) == [.authenticationFailed], "the forgery was seen and dropped")
            }
            let statistics = client.statistics
            print("NTS through a relay that does \(tampering): dropped \(statistics.dropped), \(statistics.authenticatedReplies) authenticated replies used; server answered \(try await ntp.statistics().authenticatedReplies)")
            #expect(statistics.droppedTotal >= 1)
        }
    }

    // MARK: a fleet

    /// Two server processes: A makes key exchanges and keeps the master keys in a directory; B, another
    /// process, answers NTS from the keys it reads there. The client, sent to B by A, is answered by B;
    /// with B gone, the same query fails.
    @Test(.enabled(if: Interop.shouldRun(["openssl"]) && Interop.timesyncBinary() != nil), .timeLimit(.minutes(1)))
    func aFleetSharesMasterKeysThroughADirectory() async throws {
        let binary = try #require(Interop.timesyncBinary())
        let credentials = try Credentials()
        defer { try? FileManager.default.removeItem(atPath: credentials.directory) }
        let keysDirectory = credentials.directory + "/keys"
        try FileManager.default.createDirectory(atPath: keysDirectory, withIntermediateDirectories: true)
        let portA = try await freeUDPPort()
        let portB = try await freeUDPPort()
        let kePort = try await freeUDPPort()
        let a = try ChildProcess(binary, [
            "serve", "--ntp", "127.0.0.1:\(portA)", "--nts-ke", "127.0.0.1:\(kePort)", "--cert", credentials.certificate, "--key", credentials.key,
            "--nts-key-dir", keysDirectory, "--nts-ntp-server", "127.0.0.1:\(portB)", "--local-stratum", "3", "--threads", "1",
        ])
        defer { a.stop() }
        #expect(try await a.wait { a.stderr.contains("NTS-KE server listening") }, "A did not start: \(a.stderr)")
        let b = try ChildProcess(binary, [
            "serve", "--ntp", "127.0.0.1:\(portB)", "--nts-key-dir", keysDirectory, "--local-stratum", "3", "--threads", "1",
        ])
        defer { b.stop() }
        #expect(try await b.wait { b.stderr.contains("NTP server listening") }, "B did not start: \(b.stderr)")
        let query = ["query", "nts://127.0.0.1:\(kePort)", "--ca-file", credentials.certificate, "--samples", "2", "--json"]
        let run = try await ChildProcess.run(binary, query)
        print("fleet: key exchange on A, NTP on B: exit \(run.status), \(run.stdout)")
        #expect(run.status == 0, "\(run.stdout) \(run.stderr)")
        #expect(run.stdout.contains("\"ntpServer\":\"127.0.0.1:\(portB)\""))
        b.stop()
        let without = try await ChildProcess.run(binary, query + ["--timeout", "0.5"])
        print("fleet without B: exit \(without.status), \(without.stdout)")
        #expect(without.status == 1, "the answers came from B: \(without.stdout)")
    }
}

/// A UDP relay in front of an NTP server that tampers with the replies (for NTS tests).
final class TamperingRelay: Sendable {
    let channel: any Channel
    var port: Int { channel.localAddress!.port! }

    final class Box: Sendable {
        private let value = NIOLockedValueBox<TamperingRelay?>(nil)
        func set(_ relay: TamperingRelay) { value.withLockedValue { $0 = relay } }
        func get() -> TamperingRelay? { value.withLockedValue { $0 } }
    }

    private init(channel: any Channel) { self.channel = channel }

    static func start(upstream: SocketAddress, tampering: NTSInteropTests.Tampering) async throws -> TamperingRelay {
        let first = NIOLockedValueBox<[UInt8]?>(nil)
        let channel = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(Handler(upstream: upstream, tampering: tampering, first: first))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return TamperingRelay(channel: channel)
    }

    func close() async { try? await channel.close() }

    final class Handler: ChannelInboundHandler, Sendable {
        typealias InboundIn = AddressedEnvelope<ByteBuffer>
        typealias OutboundOut = AddressedEnvelope<ByteBuffer>
        let upstream: SocketAddress
        let tampering: NTSInteropTests.Tampering
        let first: NIOLockedValueBox<[UInt8]?>

        init(upstream: SocketAddress, tampering: NTSInteropTests.Tampering, first: NIOLockedValueBox<[UInt8]?>) {
            self.upstream = upstream
            self.tampering = tampering
            self.first = first
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let envelope = unwrapInboundIn(data)
            let request = Array(envelope.data.readableBytesView)
            let channel = context.channel
            let client = envelope.remoteAddress
            Task { [upstream, tampering, first] in
                guard let reply = try? await roundTrip(request, to: upstream), var packet = try? NTPPacket(decoding: reply) else { return }
                var out: [[UInt8]]
                switch tampering {
                case .flip:
                    var altered = reply
                    altered[40] ^= 0x01  // a bit of the transmit timestamp
                    out = [altered]
                case .replay:
                    let kept = first.withLockedValue { value -> [UInt8] in
                        if value == nil { value = reply }
                        return value!
                    }
                    out = [kept]
                case .strip:
                    packet.extensionFields = []
                    out = [packet.encoded()]
                case .race:
                    packet.transmitTimestamp = NTPTimestamp(packet.transmitTimestamp.unixTime(near: SystemTimeBase().wallNow()).advanced(by: .seconds(1000)))
                    out = [packet.encoded(), reply]
                }
                for bytes in out {
                    channel.writeAndFlush(AddressedEnvelope(remoteAddress: client, data: ByteBuffer(bytes: bytes)), promise: nil)
                }
            }
        }
    }
}
#endif
