#if CLI
import Foundation
import NIOCore
import NIOPosix
import Testing
import TimeSync
import TimeSyncWire
import TimeSyncServerSupport
import TimeSyncFixtures
import TimeSyncTestSupport
import TimeSyncTesting
import TimeSyncNTP
import TimeSyncNTPServer

/// Runs `server` for the duration of `body`, with its bound address.
func withRunning<T: Sendable>(
    _ server: NTPServer, _ body: @Sendable (SocketAddress) async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await server.run() }
        defer { group.cancelAll() }
        return try await body(try await server.localAddress())
    }
}

/// A mode-3 request for ``roundTrip(_:to:)``.
func clientRequest() -> [UInt8] {
    NTPPacket(version: 4, mode: .client, transmitTimestamp: NTPTimestamp(rawValue: 0xE000_0000_0000_0001)).encoded()
}

/// The server's leap indicator, stratum and root dispersion come from the kernel's clock state.
@Suite struct NTPServerTruthTests {
    static let synchronized = NTPClockState(
        isSynchronized: true, maximumError: .microseconds(2_500), estimatedError: .microseconds(30), leapSecond: .insert)

    @Test func unsynchronizedHostAnswersAlarmAndStratum16() async throws {
        let kernel = FakeKernelClock(.unknown)
        let server = NTPServer(configuration: .init(host: "127.0.0.1", port: 0), kernelClock: kernel)
        try await withRunning(server) { address in
            let reply = try NTPPacket(decoding: try await roundTrip(clientRequest(), to: address))
            #expect(reply.leap == .unsynchronized)
            #expect(reply.stratum == 16)
            #expect(reply.rootDispersion.duration >= .seconds(16))
            // Our own client will not use it, and says why.
            await expectThrows(NTPReplyError.unsynchronized) {
                _ = try await NTPClient(timeBase: SystemTimeBase()).exchange(with: address, timeout: .seconds(2))
            }
        }
    }

    @Test func localStratumServesTheUnsynchronizedClock() async throws {
        let kernel = FakeKernelClock(.unknown)
        let server = NTPServer(configuration: .init(host: "127.0.0.1", port: 0, localStratum: 3), kernelClock: kernel)
        try await withRunning(server) { address in
            let reply = try await NTPClient(timeBase: SystemTimeBase()).exchange(with: address, timeout: .seconds(2))
            #expect(reply.packet.leap == .noWarning)
            #expect(reply.packet.stratum == 3)
            #expect(reply.packet.referenceID == .local)
            #expect(reply.packet.rootDispersion == NTPShortFormat(NTPClockState.localRootDispersion))
        }
    }

    @Test func synchronizedHostAdvertisesTheKernelsErrorAndLeapSecond() async throws {
        let kernel = FakeKernelClock(Self.synchronized)
        let server = NTPServer(configuration: .init(host: "127.0.0.1", port: 0, localStratum: 9), kernelClock: kernel)
        try await withRunning(server) { address in
            let reply = try NTPPacket(decoding: try await roundTrip(clientRequest(), to: address))
            #expect(reply.leap == .lastMinuteHas61Seconds)
            #expect(reply.stratum == 2)
            #expect(reply.rootDispersion == NTPShortFormat(.microseconds(2_500)))
        }
    }

    @Test func fixedPolicyIgnoresTheKernel() async throws {
        let kernel = FakeKernelClock(.unknown)
        let policy = NTPServerPolicy(stratum: 1, referenceID: NTPReferenceID(ascii: "GPS")!, rootDispersion: .microseconds(50))
        let server = NTPServer(
            configuration: .init(host: "127.0.0.1", port: 0, policy: policy, policySource: .fixed), kernelClock: kernel)
        try await withRunning(server) { address in
            let reply = try NTPPacket(decoding: try await roundTrip(clientRequest(), to: address))
            #expect(reply.leap == .noWarning && reply.stratum == 1 && reply.referenceID.ascii == "GPS")
        }
        #expect(kernel.reads == 0)
    }

    /// The state is read at most once a second of the time base's monotonic clock, not per packet,
    /// and a change shows up once the second has passed.
    @Test func kernelIsReadAtMostOncePerSecond() async throws {
        let kernel = FakeKernelClock(.unknown)
        let timeBase = ManualTimeBase(wall: SystemTimeBase().wallNow())
        let server = NTPServer(
            configuration: .init(host: "127.0.0.1", port: 0, rateLimit: .infinity), timeBase: timeBase, kernelClock: kernel)
        try await withRunning(server) { address in
            let readsBefore = kernel.reads  // the start-up log reads it once
            for _ in 0..<5 {
                let reply = try NTPPacket(decoding: try await roundTrip(clientRequest(), to: address))
                #expect(reply.leap == .unsynchronized && reply.stratum == 16)
            }
            #expect(kernel.reads - readsBefore == 1)
            kernel.state = Self.synchronized
            timeBase.advance(by: .milliseconds(999))
            let stale = try NTPPacket(decoding: try await roundTrip(clientRequest(), to: address))
            #expect(stale.stratum == 16)
            #expect(kernel.reads - readsBefore == 1)
            timeBase.advance(by: .milliseconds(1))
            for _ in 0..<3 {
                let fresh = try NTPPacket(decoding: try await roundTrip(clientRequest(), to: address))
                #expect(fresh.leap == .lastMinuteHas61Seconds && fresh.stratum == 2)
            }
            #expect(kernel.reads - readsBefore == 2)
        }
    }

    /// chrony, as a client, refuses our server while the host is unsynchronized, and accepts it
    /// once the operator opts in with a local stratum (as it would chronyd's `local stratum`).
    @Test(.enabled(if: Interop.shouldRun(["chronyd", "faketime"])), .timeLimit(.minutes(1)), arguments: [nil, UInt8(3)])
    func chronyJudgesOurServer(localStratum: UInt8?) async throws {
        let chronyd = try #require(Interop.chronyd, "chronyd is missing: run scripts/install-test-deps")
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = NTPServer(
            configuration: .init(host: "127.0.0.1", port: 0, localStratum: localStratum), kernelClock: FakeKernelClock(.unknown))
        try await withRunning(server) { address in
            let chrony = try ChildProcessGroup(
                chronyd, ["-Q", "-t", "12", "-f", "/dev/null", "server 127.0.0.1 port \(address.port!) iburst maxsamples 4"],
                outputPath: "\(directory)/chronyd.log")
            defer { chrony.stop() }
            let status = await chrony.wait(timeout: .seconds(30))
            let output = chrony.output
            print("chronyd -Q against our unsynchronized host, local stratum \(localStratum.map(String.init) ?? "none"): \(output)")
            if localStratum == nil {
                #expect(status != 0, "\(output)")
                #expect(ChronyNTPTests.systemClockWrongBy(output) == nil, "\(output)")
                #expect(output.contains("No suitable source"), "\(output)")
            } else {
                #expect(status == 0, "\(output)")
                let wrong = try #require(ChronyNTPTests.systemClockWrongBy(output), "\(output)")
                #expect(abs(wrong) < 0.002)
            }
        }
    }
}

/// `run()` refuses a port another socket already serves instead of sharing it with `SO_REUSEPORT`.
@Suite(.serialized) struct NTPServerPortTests {
    /// A UDP socket on 127.0.0.1, with `SO_REUSEPORT` when `reusePort` (as chronyd's is).
    static func holdPort(reusePort: Bool) async throws -> any Channel {
        var bootstrap = DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        if reusePort { bootstrap = bootstrap.channelOption(.socket(SocketOptionLevel(SOL_SOCKET), SO_REUSEPORT), value: 1) }
        return try await bootstrap.bind(host: "127.0.0.1", port: 0).get()
    }

    /// Expects a server of `threads` sockets on `port` to fail with the typed error and its message.
    static func expectRefused(port: Int, threads: Int) async {
        let server = NTPServer(
            configuration: .init(host: "127.0.0.1", port: port, localStratum: 1, threads: threads),
            kernelClock: FakeKernelClock(.unknown))
        do {
            try await server.run()
            Issue.record("a server with \(threads) socket(s) started on port \(port), which another socket holds")
        } catch let error as ServerBindError {
            #expect(error.code == .addressInUse)
            #expect(error.port == port && error.host == "127.0.0.1")
            #expect("\(error)" == "UDP port \(port) on 127.0.0.1 is already in use by another process")
        } catch {
            Issue.record("expected ServerBindError.addressInUse, got \(error)")
        }
        await expectThrows(ServerBindError.addressInUse) { try await server.localAddress() }
    }

    @Test(arguments: [true, false], [1, 2])
    func portHeldByAnotherSocketIsRefused(reusePort: Bool, threads: Int) async throws {
        let holder = try await Self.holdPort(reusePort: reusePort)
        defer { holder.close(promise: nil) }
        await Self.expectRefused(port: holder.localAddress!.port!, threads: threads)
    }

    @Test(arguments: [1, 2])
    func freePortIsServed(threads: Int) async throws {
        let port = try await freeUDPPort()
        let server = NTPServer(
            configuration: .init(host: "127.0.0.1", port: port, localStratum: 1, threads: threads),
            kernelClock: FakeKernelClock(.unknown))
        try await withRunning(server) { address in
            #expect(address.port == port)
            for _ in 0..<4 {
                let reply = try await NTPClient(timeBase: SystemTimeBase()).exchange(with: address, timeout: .seconds(2))
                #expect(reply.packet.stratum == 1)
            }
        }
    }

    /// chronyd serves the port (with `SO_REUSEPORT`): our server must refuse it, not silently share it.
    @Test(.enabled(if: Interop.shouldRun(["chronyd", "faketime"])), .timeLimit(.minutes(1)))
    func portServedByChronydIsRefused() async throws {
        let chronyd = try #require(Interop.chronyd, "chronyd is missing: run scripts/install-test-deps")
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let port = try await freeUDPPort()
        try writeChronyConfiguration(port: port, directory: directory)
        let chrony = try ChildProcessGroup(
            chronyd, ["-U", "-x", "-d", "-f", "\(directory)/chrony.conf"], outputPath: "\(directory)/chronyd.log")
        defer { chrony.stop() }
        var answered = false
        for _ in 0..<40 where !answered {
            answered = (try? await NTPClient(timeBase: SystemTimeBase()).query(host: "127.0.0.1", port: port, timeout: .milliseconds(250))) != nil
            if !answered { try await Task.sleep(for: .milliseconds(100)) }
        }
        try #require(answered, "chronyd never answered: \(chrony.output)")
        await Self.expectRefused(port: port, threads: 2)
        await Self.expectRefused(port: port, threads: 1)
        // chronyd still answers every request: none went to a socket of ours.
        let result = try await NTPClient(timeBase: SystemTimeBase()).query(host: "127.0.0.1", port: port, timeout: .seconds(1), samples: 4, interval: .milliseconds(20))
        #expect(result.stratum == 3 && result.samples.count == 4)
    }
}
#endif
