#if CLI
import Foundation
import Testing
import TimeSync
import TimeSyncWire
import TimeSyncNTP
import TimeSyncNTPServer
import TimeSyncTestSupport

/// What `timesync watch --json` adds from the synchronizer's diagnostics: the calibration's age, the
/// next poll with its reason, each source's last success and failure.
@Suite(.serialized) struct WatchDiagnosticsTests {
    @Test(.enabled(if: Interop.timesyncBinary() != nil), .timeLimit(.minutes(1)))
    func anUpdateSaysWhenItPollsNextAndWhatEachSourceLastDid() async throws {
        let kissing = try await FakeNTPServer.start { request in
            var kiss = goodReply(to: request)
            kiss.stratum = 0
            kiss.referenceID = NTPReferenceID(ascii: "RATE")!
            return [kiss.encoded()]
        }
        let honest = try await FakeNTPServer.start { [goodReply(to: $0).encoded()] }
        defer { Task { await kissing.close(); await honest.close() } }
        let result = try await WatchStatesTests.watch(
            ["--json", "--duration", "3", "--timeout", "0.5", "--interval", "1", "ntp://127.0.0.1:\(kissing.address.port!)", "ntp://127.0.0.1:\(honest.address.port!)"])
        let last = try #require(result.lines.last { $0["status"] != nil }, "\(result.stderr)")
        let diagnostics = try #require(last["diagnostics"] as? [String: Any], "\(last)")
        #expect((diagnostics["calibrationAge"] as? Double ?? -1) >= 0)
        let next = try #require(diagnostics["nextPoll"] as? [String: Any], "\(diagnostics)")
        #expect((next["in"] as? Double ?? -1) >= 0)
        #expect(PollReason(rawValue: next["reason"] as? String ?? "") != nil, "\(next)")
        let sources = try #require(diagnostics["sources"] as? [[String: Any]])
        #expect(sources.count == 2)
        let kissed = try #require(sources.first?["lastFailure"] as? [String: Any], "\(sources)")
        #expect((kissed["reason"] as? String ?? "").contains("RATE"), "\(kissed)")
        #expect(sources.first?["lastSuccess"] == nil)
        let answered = try #require(sources.last?["lastSuccess"] as? [String: Any], "\(sources)")
        #expect((answered["ago"] as? Double ?? -1) >= 0 && answered["samples"] as? Int == 1, "\(answered)")
        #expect(sources.last?["lastFailure"] == nil)
    }
}
#endif
