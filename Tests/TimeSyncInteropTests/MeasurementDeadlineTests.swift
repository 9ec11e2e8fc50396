#if CLI
import AsyncHTTPClient
import Foundation
import Logging
import Testing
import TimeSync
import TimeSyncAsyncHTTPClient
@testable import TimeSyncNTP
import TimeSyncTestSupport

/// A synchronizer's measurement has one deadline, its `timeout`, for the whole of it: however many
/// requests it would send, it ends within it (real sockets, real time; the margins are generous,
/// the durations printed).
@Suite(.serialized) struct MeasurementDeadlineTests {
    /// Four NTP requests to a server that never answers, 1 s for the whole measurement: one deadline,
    /// not four (they used to take 4 s).
    @Test func anNTPMeasurementOfFourRequestsEndsWithinItsTimeout() async throws {
        let silent = try await FakeNTPServer.start { _ in [] }
        defer { Task { await silent.close() } }
        let server = NTPServerAddress(host: "127.0.0.1", port: try #require(silent.address.port))
        let clock = ContinuousClock()
        let started = clock.now
        await #expect(throws: NTPClientError.timeout) {
            try await NTPClient().samples(of: server, source: "silent", timeout: .seconds(1), samples: 4, interval: .milliseconds(250))
        }
        let elapsed = clock.now - started
        print("NTP measurement, 4 requests to a silent server, 1 s timeout: ended after \(elapsed)")
        #expect(elapsed < .milliseconds(1500), "\(elapsed)")
    }

    /// An HTTP source whose server takes 0.6 s a response, measured with 1 s for the whole poll: the
    /// requests it would send (an opening one, then the `Date` refinement's) stop at the deadline, and
    /// the samples taken by then are the measurement (they used to take 0.6 s each, whole).
    @Test(.enabled(if: Interop.shouldRun(["faketime", "python3"])))
    func anHTTPMeasurementEndsWithinItsTimeoutWithWhatItHas() async throws {
        let (server, port) = try await InteropTests().startPythonServer(delay: 0.6)
        defer { server.stop() }
        let client = HTTPTimeSource.makeClient()
        defer { _ = client.shutdown() }
        let source = try HTTPTimeSource(url: "http://127.0.0.1:\(port)/", client: client, timeout: .seconds(5), logger: Logger(label: "test"))
        let clock = ContinuousClock()
        let started = clock.now
        let samples = try await source.measure(timeout: .seconds(1))
        let elapsed = clock.now - started
        print("HTTP measurement, 0.6 s a response, 1 s timeout: \(samples.count) samples after \(elapsed)")
        #expect(!samples.isEmpty)
        #expect(elapsed < .milliseconds(1500), "\(elapsed)")
    }
}
#endif
