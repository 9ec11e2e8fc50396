#if CLI
import AsyncHTTPClient
import Hummingbird
import HummingbirdTesting
import Logging
import Testing
import TimeSync
import TimeSyncFixtures
import TimeSyncTestSupport
import TimeSyncAsyncHTTPClient
import TimeSyncHTTP
import TimeSyncHummingbird

@Suite("Active source against an in-process Hummingbird server on loopback")
struct LoopbackTests {
    /// The shift of the server's wall clock: an in-process stand-in for faketime.
    static let shift: Duration = .milliseconds(1500)

    @Test("own header: measured offset within 2 ms of the server's shift, over a warm connection")
    func ownHeaderOffset() async throws {
        let serverTime = ShiftedTimeBase(shift: Self.shift)
        let app = TimeSyncHTTPServer.application(host: "127.0.0.1", port: 0, timeBase: serverTime, logger: Logger(label: "server"))
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let http = HTTPTimeSource.makeClient()
            defer { _ = http.shutdown() }
            let timeBase = SystemTimeBase()
            let source = try HTTPTimeSource(
                url: "http://127.0.0.1:\(port)/time", client: http, timeBase: timeBase, logger: Logger(label: "client"))
            let measurement = try await source.measure(samples: 8)
            #expect(measurement.scheme == .timeHeader)
            #expect(measurement.samples.count == 8)
            #expect(measurement.requests == 9)
            #expect(measurement.rejected == 0)
            let wallOffset = measurement.wallOffset(timeBase.wallClockPair())
            let (offset, bounds) = (wallOffset.estimate.nanosecondsClamped, wallOffset.bounds)
            let error = offset - Self.shift.nanosecondsClamped
            print("own-header offset error vs shift: \(Double(error) / 1e6) ms, bounds half-width \(Double(bounds.halfWidth) / 1e6) ms, delay \(Double(measurement.delay) / 1e6) ms")
            #expect(abs(error) < 2_000_000)
            #expect(bounds.contains(Self.shift.nanosecondsClamped))

            // The samples calibrate a ServerClock the same way.
            let clock = ServerClock(timeBase: timeBase)
            clock.calibrate(with: measurement)
            let reading = clock.reading()
            #expect(reading.isSynchronized)
            let clockError = reading.serverTime.nanoseconds - timeBase.wallNow().nanoseconds - Self.shift.nanosecondsClamped
            #expect(abs(clockError) < 2_000_000)
        }
    }

    @Test("a server without the header falls back to Date; --date-only forces it")
    func dateOnlyPolicy() async throws {
        let app = TimeSyncHTTPServer.application(host: "127.0.0.1", port: 0, timeBase: SystemTimeBase(), logger: Logger(label: "server"))
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let http = HTTPTimeSource.makeClient()
            defer { _ = http.shutdown() }
            let source = try HTTPTimeSource(
                url: "http://127.0.0.1:\(port)/time", client: http, policy: .dateOnly, timeBase: SystemTimeBase(), logger: Logger(label: "client"))
            let exchange = try await source.exchange()
            #expect(exchange.hasTimeHeader)
            #expect(try exchange.result.get().scheme == .date)
        }
    }

    @Test("invalid URLs and sample counts are typed errors")
    func invalidArguments() async throws {
        expectThrows(HTTPTimeError.invalidURL) { try HTTPTimeSource(url: "ftp://example.com/", timeBase: SystemTimeBase(), logger: Logger(label: "t")) }
        expectThrows(HTTPTimeError.invalidURL) { try HTTPTimeSource(url: "/relative", timeBase: SystemTimeBase(), logger: Logger(label: "t")) }
        let source = try HTTPTimeSource(url: "http://127.0.0.1:9/", timeBase: SystemTimeBase(), logger: Logger(label: "t"))
        #expect(source.source == "127.0.0.1:9")
        await expectThrows(HTTPTimeError.invalidArgument) { try await source.measure(samples: 0) }
    }
}

#if canImport(FoundationNetworking) || canImport(Darwin)
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("URLSession convenience")
struct URLSessionTests {
    @Test("an ordinary URLSession request calibrates from the stamped response")
    func urlSessionSample() async throws {
        let shift = LoopbackTests.shift
        let app = TimeSyncHTTPServer.application(
            host: "127.0.0.1", port: 0, timeBase: ShiftedTimeBase(shift: shift), logger: Logger(label: "server"))
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let timeBase = SystemTimeBase()
            let observer = HTTPTimeObserver(source: "127.0.0.1:\(port)", timeBase: timeBase)
            let session = URLSession(configuration: .ephemeral)
            let request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/time")!)
            let (data, response, observation) = try await session.timeSyncData(for: request, observer: observer)
            #expect(response.statusCode == 200)
            #expect(!data.isEmpty)
            let sample = try observation.get().sample
            #expect(try observation.get().scheme == .timeHeader)
            // θ + monotonic − wall = server − wall clock = the shift, inside the (wide, whole-load) bounds.
            let toWall = timeBase.monotonicNow().nanoseconds - timeBase.wallNow().nanoseconds
            #expect(sample.offset.shifted(by: toWall).widened(by: 1_000_000).contains(shift.nanosecondsClamped))
        }
    }
}
#endif
#endif
