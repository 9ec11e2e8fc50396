#if CLI
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Hummingbird
import Logging
import NIOCore
import Testing
import TimeSync
import TimeSyncSockets
import TimeSyncFixtures
import TimeSyncHTTP
import TimeSyncHummingbird
import TimeSyncNTP
import TimeSyncTestSupport

/// The one-liner's synchronizer where UDP is blocked: an NTP server that never answers (silence, no
/// ICMP) and three real HTTP servers on loopback whose `Date` comes from a clock 3 s ahead. The
/// `Date` sources join after the fallback delay, and the clock follows them, below a second.
@Suite("NTP silent, HTTPS Date fallback", .serialized)
struct FallbackInteropTests {
    static let shift = Duration.seconds(3)

    /// Runs `count` HTTP servers that answer `HEAD /` with a `Date` from a clock `shift` ahead,
    /// recording when each request came, until `body` returns.
    static func withDateServers<Value>(
        count: Int, _ body: ([Int], @escaping @Sendable () -> [MonotonicInstant]) async throws -> Value
    ) async throws -> Value {
        let requests = LockedArray<MonotonicInstant>()
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        var servers: [Task<Void, any Error>] = []
        defer { for server in servers { server.cancel() } }
        for _ in 0..<count {
            let router = Router(context: BasicRequestContext.self)
            router.on("/", method: .head) { _, _ -> Response in
                requests.append(SystemTimeBase().monotonicNow())
                return Response(status: .ok)
            }
            var logger = Logger(label: "date-server")
            logger.logLevel = .critical
            let app = TimeSyncApplication(
                router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                onServerRunning: { continuation.yield($0.localAddress!.port!) }, timeBase: ShiftedTimeBase(shift: shift), logger: logger)
            servers.append(Task { try await app.runService(gracefulShutdownSignals: []) })
        }
        var iterator = ports.makeAsyncIterator()
        var bound: [Int] = []
        for _ in 0..<count { bound.append(try #require(await iterator.next())) }
        return try await body(bound) { requests.snapshot }
    }

    @Test("silent NTP: the Date sources join once NTP's poll failed and the clock follows them below a second")
    func silentNTPFallsBackToDate() async throws {
        let silent = try await FakeNTPServer.start { _ in [] }
        defer { Task { await silent.close() } }
        let port = try #require(silent.address.port)
        try await Self.withDateServers(count: 3) { ports, requests in
            let started = SystemTimeBase().monotonicNow()
            let synchronizer = TimeSynchronizer.ntp(
                [NTPServerAddress(host: "127.0.0.1", port: port)],
                fallbackHosts: ports.map { URL(string: "http://127.0.0.1:\($0)/")! },
                configuration: .init(timeout: .seconds(1), fallbackAfter: .seconds(30)))
            let events = synchronizer.events()
            synchronizer.start()
            let fellBack = Task {
                for await event in events { if case .fallingBack(let sources, _) = event { return sources } }
                return []
            }
            let synchronized = await synchronizer.waitUntilSynchronized(timeout: .seconds(20))
            // Each measurement times its requests so that the servers' second boundaries fall inside
            // them: the bounds shrink from a second toward the round trip.
            let refinedBy = SystemTimeBase().monotonicNow().advanced(by: .seconds(15))
            while synchronizer.clock.reading().error >= .milliseconds(100), SystemTimeBase().monotonicNow() < refinedBy {
                try await Task.sleep(for: .milliseconds(100))
            }
            let reading = synchronizer.clock.reading()
            let wall = SystemTimeBase().wallNow()
            await synchronizer.stop()
            let sources = await fellBack.value
            #expect(synchronized, "status \(reading.status), sources \(synchronizer.diagnostics().sources)")
            #expect(Set(sources) == Set(ports.map { "127.0.0.1:\($0)" }))
            // No HTTP request before NTP's poll failed (its 1 s deadline): NTP had its chance first.
            // The Date sources then join at once, long before the 30 s delay: the NTP path has failed.
            let first = try #require(requests().min())
            #expect(started.duration(to: first) >= .seconds(1), "first Date request after \(started.duration(to: first))")
            #expect(started.duration(to: first) < .seconds(20), "first Date request after \(started.duration(to: first))")
            // The clock follows the Date servers (3 s ahead), its bounds hold their time and are refined
            // far below a `Date`'s second.
            let ahead = reading.serverTime.duration(to: wall) * -1
            #expect(abs((ahead - Self.shift).secondsValue) < 0.1, "server − wall \(ahead)")
            #expect(reading.error < .milliseconds(100), "error \(reading.error)")
            let truth = wall.advanced(by: Self.shift)
            #expect(reading.earliest.advanced(by: .milliseconds(-5)) <= truth && truth <= reading.latest.advanced(by: .milliseconds(5)))
        }
    }

    @Test("an NTP server that answers keeps the Date sources standing by")
    func answeringNTPNeedsNoFallback() async throws {
        try await withNTPServer(timeBase: SystemTimeBase()) { _, address in
            try await Self.withDateServers(count: 1) { ports, requests in
                let synchronizer = TimeSynchronizer.ntp(
                    [NTPServerAddress(host: "127.0.0.1", port: address.port!)],
                    fallbackHosts: ports.map { URL(string: "http://127.0.0.1:\($0)/")! },
                    configuration: .init(timeout: .seconds(1), fallbackAfter: .milliseconds(500)))
                synchronizer.start()
                #expect(await synchronizer.waitUntilSynchronized(timeout: .seconds(10)))
                // Past the delay: the NTP server answered, so no Date request is sent.
                try await Task.sleep(for: .seconds(1))
                await synchronizer.stop()
                #expect(requests().isEmpty)
            }
        }
    }
}

/// A host name's loopback answer is skipped unless the client opts in; `localhost` and IP literals
/// are used as they are. The name comes from the hosts file: one that resolves only to loopback
/// addresses and is not `localhost`.
@Suite("NTP name resolution: local answers", .serialized)
struct LocalAddressInteropTests {
    /// A name (not `localhost`) that the system resolves to loopback addresses only.
    static func loopbackName() -> String? {
        var names = ["vm", "runsc", "ip6-localhost", "localhost.localdomain"]
        var host = [CChar](repeating: 0, count: 256)
        if gethostname(&host, host.count) == 0 { names.append(String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)) }
        for name in names {
            var result: UnsafeMutablePointer<addrinfo>?
            var hints = addrinfo()
            hints.ai_family = AF_INET
            guard getaddrinfo(name, "123", &hints, &result) == 0, let first = result else { continue }
            defer { freeaddrinfo(result) }
            let loopback = first.pointee.ai_addr.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                UInt32(bigEndian: $0.pointee.sin_addr.s_addr) >> 24 == 127
            }
            if loopback { return name }
        }
        return nil
    }

    @Test("a name resolving to loopback is refused by default, used with the opt-in")
    func loopbackAnswerOfAName() async throws {
        guard let name = Self.loopbackName() else {
            if ProcessInfo.processInfo.environment["TIMESYNC_REQUIRE_INTEROP"] == "1" {
                Issue.record("no host name other than localhost resolves to a loopback address here (/etc/hosts)")
            }
            return
        }
        try await withNTPServer(timeBase: SystemTimeBase()) { _, address in
            let port = try #require(address.port)
            let error = await expectThrows(NTPClientError.localAddresses) {
                try await NTPClient(timeBase: SystemTimeBase()).query(host: name, port: port, timeout: .seconds(1))
            }
            #expect(error?.description.contains("127.") == true, "\(String(describing: error))")
            let result = try await NTPClient(timeBase: SystemTimeBase(), addressPolicy: .allowingLocal).query(host: name, port: port, timeout: .seconds(1))
            #expect(result.address.hasPrefix("127."))
            // localhost and a literal need no opt-in.
            _ = try await NTPClient(timeBase: SystemTimeBase()).query(host: "localhost", port: port, timeout: .seconds(1))
            _ = try await NTPClient(timeBase: SystemTimeBase()).query(host: "127.0.0.1", port: port, timeout: .seconds(1))
        }
    }
}
#endif
