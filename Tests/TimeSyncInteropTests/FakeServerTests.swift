#if CLI
import NIOCore
import Testing
import TimeSync
import TimeSyncWire
import TimeSyncServerSupport
import TimeSyncTestSupport
import TimeSyncNTP
import TimeSyncNTPServer

/// Replies crafted by a fake server: each must be rejected with its error, and a clock fed by the
/// pool source must stay unchanged.
@Suite struct FakeServerTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let expected: NTPReplyError
        let respond: FakeNTPServer.Responder
        var testDescription: String { name }
    }

    static func mutated(_ change: @escaping @Sendable (inout NTPPacket) -> Void) -> FakeNTPServer.Responder {
        { request in
            var reply = goodReply(to: request)
            change(&reply)
            return [reply.encoded()]
        }
    }

    static let cases: [Case] = [
        Case(name: "KoD RATE", expected: .kissOfDeath, respond: { [NTPServerResponder.kiss(.rate, to: $0).encoded()] }),
        Case(name: "KoD DENY", expected: .kissOfDeath, respond: { [NTPServerResponder.kiss(.deny, to: $0).encoded()] }),
        Case(name: "KoD RSTR", expected: .kissOfDeath, respond: { [NTPServerResponder.kiss(.restricted, to: $0).encoded()] }),
        Case(
            name: "spoofed origin", expected: .originMismatch,
            respond: mutated { $0.originTimestamp = NTPTimestamp(rawValue: $0.originTimestamp.rawValue &+ 1) }),
        Case(
            name: "spoofed KoD DENY", expected: .originMismatch,
            respond: { request in
                var kiss = NTPServerResponder.kiss(.deny, to: request)
                kiss.originTimestamp = NTPTimestamp(rawValue: 0xDEAD_BEEF)
                return [kiss.encoded()]
            }),
        Case(name: "leap indicator 3", expected: .unsynchronized, respond: mutated { $0.leap = .unsynchronized }),
        Case(name: "stratum 16", expected: .unsynchronized, respond: mutated { $0.stratum = 16 }),
        Case(name: "zero receive timestamp", expected: .zeroTimestamp, respond: mutated { $0.receiveTimestamp = .zero }),
        Case(name: "zero transmit timestamp", expected: .zeroTimestamp, respond: mutated { $0.transmitTimestamp = .zero }),
        Case(name: "truncated", expected: .malformedPacket, respond: { [Array(goodReply(to: $0).encoded().prefix(40))] }),
        Case(name: "client mode", expected: .notServerMode, respond: mutated { $0.mode = .client }),
        Case(
            name: "root distance 2 s", expected: .rootDistanceExceeded,
            respond: mutated { $0.rootDispersion = NTPShortFormat(.seconds(2)) }),
    ]

    @Test(arguments: cases)
    func clientRejectsCraftedReply(_ row: Case) async throws {
        let fake = try await FakeNTPServer.start(row.respond)
        do {
            _ = try await NTPClient(timeBase: SystemTimeBase()).exchange(with: fake.address, timeout: .milliseconds(300))
            Issue.record("\(row.name) was accepted")
        } catch let error as NTPReplyError {
            #expect(error.code == row.expected.code)
            if row.expected.code == .kissOfDeath { #expect(error.kissCode != nil) }
        }
        await fake.close()
    }

    @Test(arguments: cases)
    func poolSourceLeavesTheClockUnchanged(_ row: Case) async throws {
        let fake = try await FakeNTPServer.start(row.respond)
        let clock = ServerClock()
        let events = EventLog()
        let source = loopbackPoolSource(
            ports: [fake.address.port!], clock: clock, events: events, burst: 2, timeout: .milliseconds(200))
        let task = Task { try await source.run() }
        // Wait until both burst polls have been judged (the first steady poll is 64 s away).
        try await events.wait { log in log.filter(\.isOutcome).count >= 2 || log.contains(where: \.isKiss) }
        task.cancel()
        try await task.value
        await fake.close()
        #expect(clock.calibration == nil)
        #expect(!clock.reading().isSynchronized)
        let log = events.all
        let sawSample = log.contains(where: \.isSample)
        let sawStop = log.contains(where: \.isStop)
        #expect(!sawSample)
        if row.name == "KoD DENY" || row.name == "KoD RSTR" {
            #expect(sawStop, "DENY/RSTR must stop the source")
        }
        if row.name == "KoD RATE" {
            // RATE ends the burst at once and backs off.
            let backedOff = log.contains { event in
                if case .kissOfDeath(_, .rate, let retry?) = event { retry >= .seconds(128) } else { false }
            }
            #expect(backedOff)
        }
    }

    @Test func genuineReplyAfterASpoofedOneIsUsed() async throws {
        let fake = try await FakeNTPServer.start { request in
            var spoofed = NTPServerResponder.kiss(.deny, to: request)
            spoofed.originTimestamp = .zero
            return [spoofed.encoded(), goodReply(to: request, shift: .seconds(3)).encoded()]
        }
        let reply = try await NTPClient(timeBase: SystemTimeBase()).exchange(with: fake.address, timeout: .seconds(2))
        let sample = try reply.sample(source: "fake")
        #expect(sample.offset.midpoint > 0)
        await fake.close()
    }

    @Test func duplicateRepliesAreIgnored() async throws {
        let fake = try await FakeNTPServer.start { request in
            let reply = goodReply(to: request).encoded()
            return [reply, reply, reply]
        }
        _ = try await NTPClient(timeBase: SystemTimeBase()).exchange(with: fake.address, timeout: .seconds(2))
        await fake.close()
    }
}
#endif
