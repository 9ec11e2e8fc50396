#if CLI
import Foundation
import NIOCore
import Testing
import TimeSync
import TimeSyncWire
import TimeSyncFixtures
import TimeSyncNTP
import TimeSyncNTPServer
import TimeSyncTestSupport

/// An on-path spoofer that answers every request before the server (a lie, then the truth, from the
/// server's address), on real UDP sockets: the client sees both replies, discards the exchange and
/// says so — through the library, `timesync query` and `timesync watch` with 1, 3 and 5 sources.
@Suite(.serialized) struct RacingSpooferTests {
    static let lie: Duration = .seconds(1000)

    /// Every request gets two replies: `first`, then `second` (shifts from the true time).
    static func racing(first: Duration, second: Duration) async throws -> FakeNTPServer {
        try await FakeNTPServer.start { request in
            [goodReply(to: request, shift: first).encoded(), goodReply(to: request, shift: second).encoded()]
        }
    }

    @Test(arguments: [(lie, Duration.zero), (Duration.zero, lie)])
    func theClientDiscardsARacedExchange(_ replies: (Duration, Duration)) async throws {
        let fake = try await Self.racing(first: replies.0, second: replies.1)
        defer { Task { await fake.close() } }
        await expectThrows(NTPReplyError.conflictingReplies) {
            try await NTPClient(timeBase: SystemTimeBase()).exchange(with: fake.address, timeout: .seconds(2))
        }
        // One query of four samples: the first raced exchange ends it.
        await expectThrows(NTPReplyError.conflictingReplies) {
            try await NTPClient(timeBase: SystemTimeBase()).query(host: "127.0.0.1", port: fake.address.port!, timeout: .seconds(2), samples: 4, interval: .milliseconds(10))
        }
    }

    /// An identical copy of the reply (a network duplicate) is no conflict.
    @Test func aDuplicatedReplyIsNoConflict() async throws {
        let fake = try await FakeNTPServer.start { request in
            let reply = goodReply(to: request).encoded()
            return [reply, reply]
        }
        defer { Task { await fake.close() } }
        let reply = try await NTPClient(timeBase: SystemTimeBase()).exchange(with: fake.address, timeout: .seconds(2))
        #expect(reply.packet.stratum == 2)
    }

    @Test(.enabled(if: Interop.timesyncBinary() != nil), .timeLimit(.minutes(1)))
    func queryFailsNamingTheSpoofing() async throws {
        let binary = try #require(Interop.timesyncBinary())
        let fake = try await Self.racing(first: Self.lie, second: .zero)
        defer { Task { await fake.close() } }
        let run = try await ChildProcess.run(binary, ["query", "ntp://127.0.0.1:\(fake.address.port!)", "--samples", "4", "--json"])
        print("query against a racing spoofer: exit \(run.status), \(run.stdout.trimmingCharacters(in: .whitespacesAndNewlines))")
        #expect(run.status == 1)
        #expect(run.stdout.contains("spoofing"), "\(run.stdout) \(run.stderr)")
        #expect(!run.stdout.contains("\"offset\""))
    }

    /// `watch` on 1, 3 and 5 sources that all race: never a line with the lie, every source named
    /// `conflictingReplies`, every raced poll reported, exit 1 (nothing usable answered).
    @Test(.enabled(if: Interop.timesyncBinary() != nil), .timeLimit(.minutes(2)), arguments: [1, 3, 5])
    func watchNeverPrintsTheLie(_ count: Int) async throws {
        let binary = try #require(Interop.timesyncBinary())
        var fakes: [FakeNTPServer] = []
        for _ in 0..<count { fakes.append(try await Self.racing(first: Self.lie, second: .zero)) }
        defer { for fake in fakes { Task { await fake.close() } } }
        let urls = fakes.map { "ntp://127.0.0.1:\($0.address.port!)" }
        let run = try await ChildProcess.run(
            binary, ["watch", "--json", "--duration", "4", "--timeout", "0.5"] + urls, timeout: .seconds(30))
        let lines = run.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let updates = lines.filter { $0["status"] != nil }
        let conflicts = lines.filter { $0["event"] as? String == "conflictingReplies" }
        print("watch, \(count) racing source(s): exit \(run.status), \(updates.count) status lines, \(conflicts.count) conflictingReplies lines")
        #expect(run.status == 1, "\(run.stderr)")
        #expect(conflicts.count >= count)
        for update in updates {
            #expect(update["status"] as? String != "synchronized", "\(update)")
            if let offset = update["offset"] as? Double { #expect(abs(offset) < 1, "\(update)") }
        }
        #expect(run.stderr.contains("no source answered"), "\(run.stderr)")
    }

    /// One racing source among three honest ones: the honest majority decides, the raced one is named.
    @Test(.enabled(if: Interop.timesyncBinary() != nil), .timeLimit(.minutes(2)))
    func oneRacedSourceAmongHonestOnesIsNamed() async throws {
        let binary = try #require(Interop.timesyncBinary())
        var fakes = [try await Self.racing(first: Self.lie, second: .zero)]
        for _ in 0..<3 { fakes.append(try await FakeNTPServer.start { [goodReply(to: $0).encoded()] }) }
        defer { for fake in fakes { Task { await fake.close() } } }
        let urls = fakes.map { "ntp://127.0.0.1:\($0.address.port!)" }
        let run = try await ChildProcess.run(
            binary, ["watch", "--json", "--duration", "4", "--timeout", "0.5"] + urls, timeout: .seconds(30))
        let updates = run.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .filter { $0["status"] != nil }
        let last = try #require(updates.last, "\(run.stderr)")
        print("watch, 1 racing + 3 honest: last \(last)")
        #expect(run.status == 0)
        #expect(last["status"] as? String == "synchronized")
        #expect(abs(try #require(last["offset"] as? Double)) < 0.05)
        let states = (last["sources"] as? [[String: Any]] ?? []).map { $0["state"] as? String ?? "" }
        #expect(states == ["conflictingReplies", "selected", "selected", "selected"], "\(states)")
        for update in updates { if let offset = update["offset"] as? Double { #expect(abs(offset) < 1, "\(update)") } }
    }
}
#endif
