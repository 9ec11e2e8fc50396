#if CLI
import AsyncHTTPClient
import Foundation
import Logging
import Testing
import TimeSync
import TimeSyncWire
import TimeSyncFixtures
import TimeSyncAsyncHTTPClient
import TimeSyncHTTP
import TimeSyncNTPServer
import TimeSyncNTS
@testable import TimeSyncNTP
import TimeSyncRoughtime
import TimeSyncTestSupport
import TimeSyncTesting
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A synchronizer's measurement has one deadline, its `timeout`, for the whole of it: however many
/// requests it would send, it ends within it (real sockets, real time; the margins are generous,
/// the durations printed).
@Suite(.serialized) struct MeasurementDeadlineTests {
    /// Four NTP requests to a server that never answers, 1 s for the whole measurement: one deadline,
    /// not four.
    @Test func anNTPMeasurementOfFourRequestsEndsWithinItsTimeout() async throws {
        let silent = try await FakeNTPServer.start { _ in [] }
        defer { Task { await silent.close() } }
        let server = NTPServerAddress(host: "127.0.0.1", port: try #require(silent.address.port))
        let clock = ContinuousClock()
        let started = clock.now
        await expectThrows(NTPClientError.timeout) {
            let base = SystemTimeBase()
            return try await NTPClient(timeBase: base).samples(
                of: .server(server), source: "silent", deadline: .after(.seconds(1), on: base), samples: 4, interval: .milliseconds(250))
        }
        let elapsed = clock.now - started
        print("NTP measurement, 4 requests to a silent server, 1 s timeout: ended after \(elapsed)")
        #expect(elapsed < .milliseconds(1500), "\(elapsed)")
    }

    /// An HTTP source whose server takes 0.6 s a response, measured with 1 s for the whole poll: the
    /// requests it would send (an opening one, then the `Date` refinement's) stop at the deadline, and
    /// the samples taken by then are the measurement.
    @Test(.enabled(if: Interop.shouldRun(["faketime", "python3"])))
    func anHTTPMeasurementEndsWithinItsTimeoutWithWhatItHas() async throws {
        let (server, port) = try await InteropTests().startPythonServer(delay: 0.6)
        defer { server.stop() }
        let client = HTTPTimeSource.makeClient()
        defer { _ = client.shutdown() }
        let source = try HTTPTimeSource(url: "http://127.0.0.1:\(port)/", client: client, timeBase: SystemTimeBase(), timeout: .seconds(5), logger: Logger(label: "test"))
        let clock = ContinuousClock()
        let started = clock.now
        let samples = try await source.measure(until: .after(.seconds(1), on: SystemTimeBase()))
        let elapsed = clock.now - started
        print("HTTP measurement, 0.6 s a response, 1 s timeout: \(samples.count) samples after \(elapsed)")
        #expect(!samples.isEmpty)
        #expect(elapsed < .milliseconds(1500), "\(elapsed)")
    }

    /// A name with two addresses, both silent (localhost: 127.0.0.1 and ::1), one request each would
    /// make: the second address gets what is left of the 1 s, not 1 s of its own.
    @Test func anNTPMeasurementOfTwoSilentAddressesEndsWithinItsTimeout() async throws {
        let v4 = try await FakeNTPServer.start { _ in [] }
        defer { Task { await v4.close() } }
        let port = try #require(v4.address.port)
        let v6: FakeNTPServer
        do {
            v6 = try await FakeNTPServer.start(host: "::1", port: port) { _ in [] }
        } catch {
            print("no IPv6 loopback here: the two-address measurement is not run")
            return
        }
        defer { Task { await v6.close() } }
        let source = NTPTimeSource(NTPServerAddress(host: "localhost", port: port), timeBase: SystemTimeBase())
        let clock = ContinuousClock()
        let started = clock.now
        await expectThrows(NTPClientError.timeout) { try await source.measure(until: .after(.seconds(1), on: SystemTimeBase())) }
        let elapsed = clock.now - started
        print("NTP measurement, a name with 2 silent addresses, 1 s timeout: ended after \(elapsed)")
        #expect(elapsed < .milliseconds(1500), "\(elapsed)")
    }

    /// NTS: the key exchange answers, the NTP server it names never does; 1 s for the whole of it.
    @Test(.enabled(if: Interop.shouldRun(["openssl"])))
    func anNTSMeasurementEndsWithinItsTimeout() async throws {
        let credentials = try NTSInteropTests.Credentials()
        defer { try? FileManager.default.removeItem(atPath: credentials.directory) }
        let silent = try await FakeNTPServer.start { _ in [] }
        defer { Task { await silent.close() } }
        let silentPort = try #require(silent.address.port)
        try await NTSInteropTests.withOurServers(shift: .zero, credentials: credentials, ntpPort: { _ in silentPort }) { _, _, kePort in
            let source = NTSTimeSource(
                host: "127.0.0.1", port: kePort, timeBase: SystemTimeBase(), configuration: .init(trust: .init(additionalAuthorities: [credentials.certificate])))
            let clock = ContinuousClock()
            let started = clock.now
            await expectThrows(NTPClientError.timeout) { try await source.measure(until: .after(.seconds(1), on: SystemTimeBase())) }
            let elapsed = clock.now - started
            print("NTS measurement, key exchange then a silent NTP server, 1 s timeout: ended after \(elapsed)")
            #expect(elapsed < .milliseconds(1500), "\(elapsed)")
        }
    }

    /// Roughtime: a silent server, 1 s for resolution and the exchange.
    @Test func aRoughtimeMeasurementEndsWithinItsTimeout() async throws {
        let silent = try await FakeNTPServer.start { _ in [] }
        defer { Task { await silent.close() } }
        let client = RoughtimeClient(
            host: "127.0.0.1", port: try #require(silent.address.port), publicKey: [UInt8](repeating: 1, count: 32))
        let source = RoughtimeTimeSource(client: client)
        let clock = ContinuousClock()
        let started = clock.now
        await expectThrows(RoughtimeError.timeout) { try await source.measure(until: .after(.seconds(1), on: SystemTimeBase())) }
        let elapsed = clock.now - started
        print("Roughtime measurement, a silent server, 1 s timeout: ended after \(elapsed)")
        #expect(elapsed < .milliseconds(1500), "\(elapsed)")
    }

    /// URLSession: a `Date` source of five requests, 0.6 s a response, 1 s for the whole measurement.
    @Test(.enabled(if: Interop.shouldRun(["faketime", "python3"])))
    func aURLSessionMeasurementEndsWithinItsTimeout() async throws {
        let (server, port) = try await InteropTests().startPythonServer(delay: 0.6)
        defer { server.stop() }
        let source = URLSessionDateSource(url: try #require(URL(string: "http://127.0.0.1:\(port)/")), requestsPerMeasurement: 5, timeBase: SystemTimeBase())
        let clock = ContinuousClock()
        let started = clock.now
        let outcome: Result<[OffsetSample], any Error>
        do {
            outcome = .success(try await source.measure(until: .after(.seconds(1), on: SystemTimeBase())))
        } catch {
            outcome = .failure(error)
        }
        let elapsed = clock.now - started
        print("URLSession Date measurement, 5 requests, 0.6 s a response, 1 s timeout: \((try? outcome.get().count).map { "\($0) samples" } ?? "no sample") after \(elapsed)")
        #expect(elapsed < .milliseconds(1500), "\(elapsed)")
    }

    /// Runs `body` on a hand-moved clock, moving it 61 s at a time (20 ms of real time apart) until
    /// `body` ends: whatever a deadline a minute away was set on, the next move passes it.
    /// - Returns: What `body` ended with, the moves it took and the real time it took.
    static func onAMovedClock<T: Sendable>(
        _ base: ManualTimeBase, _ body: @escaping @Sendable () async throws -> T
    ) async throws -> (Result<T, any Error>, moves: Int, real: Duration) {
        let ended = Locked(false)
        let task = Task {
            defer { ended.withLock { $0 = true } }
            return try await body()
        }
        let clock = ContinuousClock()
        let started = clock.now
        var moves = 0
        while moves < 100, !ended.withLock({ $0 }) {
            try await Task.sleep(for: .milliseconds(20))
            if ended.withLock({ $0 }) { break }
            base.advance(by: .seconds(61))
            moves += 1
        }
        let result = await task.result
        return (result, moves, clock.now - started)
    }

    /// The four NTP requests to a silent server on a hand-moved clock, with a minute for the whole
    /// measurement: it ends once that clock passes the deadline, in far less than a minute of real time.
    @Test(.timeLimit(.minutes(1))) func anNTPMeasurementEndsAtItsDeadlineOnAnInjectedClock() async throws {
        let silent = try await FakeNTPServer.start { _ in [] }
        defer { Task { await silent.close() } }
        let server = NTPServerAddress(host: "127.0.0.1", port: try #require(silent.address.port))
        let base = ManualTimeBase()
        let (result, moves, real) = try await Self.onAMovedClock(base) {
            try await NTPClient(timeBase: base).samples(
                of: .server(server), source: "silent", deadline: .after(.seconds(60), on: base), samples: 4, interval: .milliseconds(250))
        }
        print("NTP measurement on a moved clock, 60 s deadline: \(moves) moves of 61 s, \(real) of real time: \(result)")
        #expect((try? result.get()) == nil)
        #expect(moves <= 2 && real < .seconds(10), "\(moves) moves, \(real)")
        #expect((result.failure as? NTPClientError)?.code == .timeout, "\(result)")
    }

    /// The HTTP measurements on a hand-moved clock, 0.6 s of real time a response and a minute for
    /// the whole measurement: each ends once that clock passes its deadline, whatever request is out
    /// (URLSession's `Date` source and AsyncHTTPClient's source alike).
    @Test(.timeLimit(.minutes(1)), .enabled(if: Interop.shouldRun(["faketime", "python3"])))
    func theHTTPMeasurementsEndAtTheirDeadlineOnAnInjectedClock() async throws {
        let (server, port) = try await InteropTests().startPythonServer(delay: 0.6)
        defer { server.stop() }
        let url = try #require(URL(string: "http://127.0.0.1:\(port)/"))
        let base = ManualTimeBase()
        let dates = URLSessionDateSource(url: url, requestsPerMeasurement: 5, timeBase: base)
        let (urlSession, sessionMoves, sessionReal) = try await Self.onAMovedClock(base) {
            try await dates.measure(until: .after(.seconds(60), on: base))
        }
        print("URLSession Date measurement on a moved clock, 60 s deadline: \(sessionMoves) moves, \(sessionReal) of real time: \(urlSession)")
        #expect(sessionMoves <= 2 && sessionReal < .seconds(10), "\(sessionMoves) moves, \(sessionReal)")

        let client = HTTPTimeSource.makeClient()
        defer { _ = client.shutdown() }
        let source = try HTTPTimeSource(
            url: "http://127.0.0.1:\(port)/", client: client, timeBase: base, timeout: .seconds(3600), logger: Logger(label: "test"))
        let (asyncHTTP, moves, real) = try await Self.onAMovedClock(base) { try await source.measure(until: .after(.seconds(60), on: base)) }
        print("AsyncHTTPClient measurement on a moved clock, 60 s deadline: \(moves) moves, \(real) of real time: \(asyncHTTP)")
        #expect(moves <= 2 && real < .seconds(10), "\(moves) moves, \(real)")
    }

    /// Roughtime on a hand-moved clock: the one exchange ends at the measurement's deadline.
    @Test(.timeLimit(.minutes(1))) func aRoughtimeMeasurementEndsAtItsDeadlineOnAnInjectedClock() async throws {
        let silent = try await FakeNTPServer.start { _ in [] }
        defer { Task { await silent.close() } }
        let base = ManualTimeBase()
        let client = RoughtimeClient(
            host: "127.0.0.1", port: try #require(silent.address.port), publicKey: [UInt8](repeating: 1, count: 32), timeBase: base)
        let source = RoughtimeTimeSource(client: client)
        let (result, moves, real) = try await Self.onAMovedClock(base) { try await source.measure(until: .after(.seconds(60), on: base)) }
        print("Roughtime measurement on a moved clock, 60 s deadline: \(moves) moves of 61 s, \(real) of real time")
        #expect(moves <= 2 && real < .seconds(10), "\(moves) moves, \(real)")
        #expect((result.failure as? RoughtimeError)?.code == .timeout, "\(result)")
    }
}

extension Result {
    /// The error, for a failure.
    fileprivate var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
#endif
