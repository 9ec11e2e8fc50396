#if CLI
import NIOCore
import Foundation
import Testing
import TimeSync
import TimeSyncSockets
import TimeSyncWire
import TimeSyncFixtures
import TimeSyncTestSupport
import TimeSyncTesting
import TimeSyncNTP
import TimeSyncNTPServer

/// The NTP client against lying, unsynchronized and oversized replies from a fake server on real UDP
/// sockets, and against a closed port.
@Suite(.serialized) struct NTPClientHostileTests {
    static let lie: Duration = .seconds(1000)

    /// A responder whose `n`-th reply (from 0) is shifted by `shifts[n]`.
    static func shifted(_ shifts: [Duration]) -> FakeNTPServer.Responder {
        let count = Counter()
        return { request in
            let index = count.next()
            return [goodReply(to: request, shift: index < shifts.count ? shifts[index] : .zero).encoded()]
        }
    }

    @Test(arguments: [[.zero, .zero, .zero, lie], [lie, .zero, .zero, .zero], [.zero, lie, .zero, .zero]] as [[Duration]])
    func oneLyingReplyOfFourIsOutvoted(_ shifts: [Duration]) async throws {
        let fake = try await FakeNTPServer.start(Self.shifted(shifts))
        defer { Task { await fake.close() } }
        let result = try await NTPClient(timeBase: SystemTimeBase()).query(
            host: "127.0.0.1", port: fake.address.port!, timeout: .seconds(2), samples: 4, interval: .milliseconds(10))
        #expect(result.samples.count == 3)
        #expect(result.bounds.contains(0), "\(result.bounds)")
        #expect(abs(result.wallClockOffset.nanosecondsClamped) < 50_000_000, "\(result.wallClockOffset)")
    }

    @Test func twoLiarsAgainstTwoIsNoAnswer() async throws {
        let fake = try await FakeNTPServer.start(Self.shifted([Self.lie, Self.lie, .zero, .zero]))
        defer { Task { await fake.close() } }
        let error = await expectThrows(SampleConsensusError(largestAgreeing: 2, total: 4)) {
            try await NTPClient(timeBase: SystemTimeBase()).query(
                host: "127.0.0.1", port: fake.address.port!, timeout: .seconds(2), samples: 4, interval: .milliseconds(10))
        }
        #expect(error?.largestAgreeing == 2 && error?.total == 4)
    }

    /// LI 3 with stratum 0 and no code (what chrony and ntpd send before they synchronize) is an
    /// unsynchronized server, not a Kiss-o'-Death.
    @Test func anUnsynchronizedServerIsNamedSo() async throws {
        let fake = try await FakeNTPServer.start { request in
            var reply = goodReply(to: request)
            reply.leap = .unsynchronized
            reply.stratum = 0
            reply.referenceID = NTPReferenceID(rawValue: 0)
            return [reply.encoded()]
        }
        defer { Task { await fake.close() } }
        do {
            _ = try await NTPClient(timeBase: SystemTimeBase()).exchange(with: fake.address, timeout: .seconds(2))
            Issue.record("an unsynchronized reply was accepted")
        } catch let error as NTPReplyError {
            #expect(error.code == .unsynchronized)
            #expect(error.kissCode == nil)
            #expect(error.description == "server is not synchronized (LI 3, stratum 0)")
        }
    }

    /// A datagram over 2048 bytes is ignored, never cut to size and parsed: the exchange waits for a
    /// real reply, here until its deadline, and its timeout says what was dropped.
    @Test func anOversizeReplyIsIgnored() async throws {
        let fake = try await FakeNTPServer.start { request in
            [goodReply(to: request).encoded() + [UInt8](repeating: 0, count: 3000)]
        }
        defer { Task { await fake.close() } }
        do {
            _ = try await NTPClient(timeBase: SystemTimeBase()).exchange(with: fake.address, timeout: .milliseconds(300))
            Issue.record("an oversize reply was taken")
        } catch let error as NTPClientError {
            #expect(error.code == .timeout)
            #expect(error.description.contains("1 datagram larger than 2048 bytes dropped unread"), "\(error)")
        }
        // The same reply at its size is taken: the size alone made the difference.
        let honest = try await FakeNTPServer.start { request in [goodReply(to: request).encoded()] }
        defer { Task { await honest.close() } }
        _ = try await NTPClient(timeBase: SystemTimeBase()).exchange(with: honest.address, timeout: .seconds(2))
    }

    /// A closed port answers with ICMP port-unreachable: the query says so at once instead of
    /// waiting out every request's deadline.
    @Test func aClosedPortFailsFast() async throws {
        let fake = try await FakeNTPServer.start { _ in [] }
        let port = fake.address.port!
        await fake.close()
        let timeBase = SystemTimeBase()
        let started = timeBase.monotonicNow()
        do {
            _ = try await NTPClient(timeBase: SystemTimeBase()).query(host: "127.0.0.1", port: port, timeout: .seconds(5), samples: 4)
            Issue.record("a closed port answered")
        } catch let error as NTPClientError {
            #expect(error.code == .unreachable)
            #expect("\(error)".contains("port unreachable"), "\(error)")
        }
        #expect(started.duration(to: timeBase.monotonicNow()) < .seconds(2))
    }

    /// The timeout message gives the time actually waited, for every request of the query.
    @Test func aSilentServerTimesOutSayingHowLongItWaited() async throws {
        let fake = try await FakeNTPServer.start { _ in [] }
        defer { Task { await fake.close() } }
        do {
            _ = try await NTPClient(timeBase: SystemTimeBase()).query(
                host: "127.0.0.1", port: fake.address.port!, timeout: .milliseconds(200), samples: 2, interval: .milliseconds(10))
            Issue.record("a silent server answered")
        } catch let error as NTPClientError {
            #expect(error.code == .timeout)
            // Two 200 ms deadlines: 400-something milliseconds.
            #expect("\(error)".contains("2 requests unanswered in 4") && "\(error)".hasSuffix(" ms"), "\(error)")
        }
    }

    /// The same deadline on an injected clock: a silent server's exchange times out when a hand-moved
    /// clock passes its one-minute deadline, though far less than a minute of real time goes by, and
    /// the message gives the time waited on that clock.
    @Test(.timeLimit(.minutes(1))) func aSilentServerTimesOutOnAnInjectedClock() async throws {
        let fake = try await FakeNTPServer.start { _ in [] }
        defer { Task { await fake.close() } }
        let base = ManualTimeBase()
        let client = NTPClient(timeBase: base)
        let address = try #require(IPEndpoint(host: "127.0.0.1", port: fake.address.port!))
        let ended = Locked(false)
        let exchange = Task {
            defer { ended.withLock { $0 = true } }
            return try await client.exchange(with: address, timeout: .seconds(60))
        }
        let real = SystemTimeBase()
        let started = real.monotonicNow()
        // Move the clock a minute and a second at a time until the exchange ends: whenever its
        // deadline was set, the next move passes it.
        var moves = 0
        while moves < 200 {
            base.advance(by: .seconds(61))
            moves += 1
            try await Task.sleep(for: .milliseconds(20))
            if ended.withLock({ $0 }) { break }
        }
        do {
            _ = try await exchange.value
            Issue.record("a silent server answered")
        } catch let error as NTPClientError {
            #expect(error.code == .timeout, "\(error)")
            #expect("\(error)".contains(" s"), "\(error)")
        }
        #expect(moves < 200)
        #expect(started.duration(to: real.monotonicNow()) < .seconds(30), "the deadline waited for real time")
    }
}


/// A thread-safe counter.
private final class Counter: Sendable {
    private let value = Locked(0)

    /// The current value, then counts one up.
    func next() -> Int {
        value.withLock { value in
            defer { value += 1 }
            return value
        }
    }
}
#endif
