#if canImport(FoundationNetworking) || canImport(Darwin)
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import TimeSync
import TimeSyncHTTP
import TimeSyncTesting

/// `URLSession.timeMeasurement(of:…)`, what `timesync query http(s)://` runs without SwiftNIO: bad
/// arguments are refused before any request, and a server that never answers ends the measurement at
/// the time base's deadline (the real servers are measured by the interop tests).
@Suite struct URLSessionMeasurementTests {
    @Test(arguments: [
        ("ftp://127.0.0.1/", 4, "not an absolute http(s) URL"),
        ("/time", 4, "not an absolute http(s) URL"),
        ("http://127.0.0.1/", 0, "samples 0: give 1 to 64"),
        ("http://127.0.0.1/", 65, "samples 65: give 1 to 64"),
    ])
    func badArgumentsAreRefusedBeforeAnyRequest(url: String, samples: Int, says: String) async throws {
        let base = ManualTimeBase()
        do {
            _ = try await URLSession.shared.timeMeasurement(of: URL(string: url)!, samples: samples, timeBase: base)
            Issue.record("\(url), \(samples) samples: measured")
        } catch let error as HTTPTimeError {
            #expect(error.code == .invalidArgument, "\(error)")
            #expect(error.description.contains(says), "\(error)")
        }
    }

    /// A URL whose response is not HTTP (a `data:` URL, loaded by URLSession itself) is refused with
    /// its own error, which names the URL.
    @Test func aResponseThatIsNotHTTPIsRefused() async throws {
        let request = URLRequest(url: URL(string: "data:text/plain,not%20http")!)
        let observer = HTTPTimeObserver(source: "data", timeBase: ManualTimeBase())
        do {
            _ = try await URLSession.shared.timeSyncData(for: request, observer: observer)
            Issue.record("a data: URL's response was taken as HTTP")
        } catch let error as HTTPTimeError {
            #expect(error.code == .notHTTPResponse, "\(error)")
            #expect(error.description.contains("data:text/plain"), "\(error)")
        }
    }

    @Test func aServerThatNeverAnswersTimesOutAtTheDeadline() async throws {
        let listener = try URLSessionLoadDeadlineTests.SilentListener()
        let base = ManualTimeBase()
        let url = URL(string: "http://127.0.0.1:\(listener.port)/time")!
        let measurement = Task { try await URLSession.shared.timeMeasurement(of: url, timeout: .seconds(30), timeBase: base) }
        #expect(await base.waitForSleepers(1))
        base.advance(by: .seconds(31))
        do {
            _ = try await measurement.value
            Issue.record("a server that never answered was measured")
        } catch let error as HTTPTimeError {
            #expect(error.code == .timeout)
            #expect(error.description.contains("no complete response within 31"), "\(error)")
        }
    }
}
#endif
