import Crypto
import Testing
import TimeSync
import TimeSyncWire
import TimeSyncServerSupport
import TimeSyncTesting

/// The NTP and Roughtime exchanges as state machines: each datagram in, each step out, on chosen
/// instants; no socket.
@Suite struct DatagramExchangeTests {
    static let wall = UnixTime(seconds: 1_790_000_000, nanoseconds: 250_000_000)
    static let t1 = MonotonicInstant(nanoseconds: 5_000_000_000)
    /// 20 ms after t1: the round trip.
    static let t4 = MonotonicInstant(nanoseconds: 5_020_000_000)

    /// A started NTP exchange and its request.
    static func started(window: NTPConflictWindow = .query) throws -> (NTPClientExchange, NTPClientRequest) {
        var exchange = NTPClientExchange(limits: .init(), conflictWindow: window, timeout: .seconds(2))
        let (datagram, deadline) = exchange.start(at: t1, wallTime: wall)
        #expect(datagram.count == 48)
        #expect(deadline == t1.advanced(by: .seconds(2)))
        return (exchange, try #require(exchange.request))
    }

    /// A server's reply to `request` (``NTPClientRequestTests/reply(to:)``), sent `transmitDelay`
    /// after it received it.
    static func reply(to request: NTPClientRequest, transmitDelay: Duration = .milliseconds(4)) -> NTPPacket {
        var packet = NTPClientRequestTests.reply(to: request)
        packet.transmitTimestamp = NTPTimestamp(wall.advanced(by: .milliseconds(1508)).advanced(by: transmitDelay))
        return packet
    }

    @Test func aValidReplyEndsAnExchangeWithNoConflictWindow() throws {
        var (exchange, request) = try Self.started(window: .none)
        guard case .done(let reply) = exchange.receive(Self.reply(to: request).encoded(), at: Self.t4) else {
            Issue.record("not done")
            return
        }
        #expect(reply.requestSent == Self.t1 && reply.responseReceived == Self.t4)
    }

    @Test func theConflictWindowListensOnThenAnswersWithTheFirstReply() throws {
        var (exchange, request) = try Self.started(window: .synchronizer)
        let bytes = Self.reply(to: request).encoded()
        // max(2 round trips, 250 ms) after the reply.
        guard case .listen(let until) = exchange.receive(bytes, at: Self.t4) else {
            Issue.record("did not listen on")
            return
        }
        #expect(until == Self.t4.advanced(by: .milliseconds(250)))
        // An exact copy (networks duplicate datagrams) changes nothing.
        guard case .listen(nil) = exchange.receive(bytes, at: Self.t4.advanced(by: .milliseconds(1))) else {
            Issue.record("a duplicate ended the exchange")
            return
        }
        guard case .done(let reply) = exchange.finish(at: Self.t4.advanced(by: .milliseconds(250))) else {
            Issue.record("no answer at the window's end")
            return
        }
        #expect(reply.responseReceived == Self.t4)
    }

    @Test func aSecondDifferentReplyIsAConflict() throws {
        var (exchange, request) = try Self.started()
        _ = exchange.receive(Self.reply(to: request).encoded(), at: Self.t4)
        let raced = Self.reply(to: request, transmitDelay: .milliseconds(5)).encoded()
        guard case .failed(let error) = exchange.receive(raced, at: Self.t4.advanced(by: .milliseconds(2))) else {
            Issue.record("the conflict went unseen")
            return
        }
        let rejection = try #require(error as? NTPReplyError)
        #expect(rejection.code == .conflictingReplies)
        #expect(PollOutcome(failure: rejection) == .conflicting)
    }

    @Test func strayDatagramsAreIgnoredAndTheLastIsTheAnswerIfNothingElseCame() throws {
        var (exchange, request) = try Self.started()
        var stray = Self.reply(to: request)
        stray.originTimestamp = NTPTimestamp(Self.wall)
        guard case .listen(nil) = exchange.receive(stray.encoded(), at: Self.t4) else {
            Issue.record("a stray datagram ended the exchange")
            return
        }
        guard case .listen(nil) = exchange.receive([1, 2, 3], at: Self.t4) else {
            Issue.record("an undecodable datagram ended the exchange")
            return
        }
        guard case .failed(let error) = exchange.finish(at: Self.t1.advanced(by: .seconds(2))) else {
            Issue.record("no refusal")
            return
        }
        #expect((error as? NTPReplyError)?.code == .malformedPacket)
        var (silent, _) = try Self.started()
        guard case .silent(nil) = silent.finish(at: Self.t1.advanced(by: .seconds(2))) else {
            Issue.record("nothing came, yet the exchange did not end silent")
            return
        }
    }

    /// A Kiss-o'-Death is read once, into the outcome every protocol shares.
    @Test(arguments: [("RATE", PollOutcome.slowDown(interval: .seconds(8))), ("DENY", .stop), ("RSTR", .stop), ("INIT", .failure)])
    func aKissEndsTheExchangeWithItsMeaning(code: String, outcome: PollOutcome) throws {
        var (exchange, request) = try Self.started()
        var kiss = Self.reply(to: request)
        kiss.stratum = 0
        kiss.poll = 3
        kiss.referenceID = try #require(NTPReferenceID(ascii: code))
        guard case .failed(let error) = exchange.receive(kiss.encoded(), at: Self.t4) else {
            Issue.record("a kiss did not end the exchange")
            return
        }
        let rejection = try #require(error as? NTPReplyError)
        #expect(rejection.pollOutcome == outcome)
        #expect(rejection.refusalCode == code)
        #expect(PollOutcome(failure: rejection) == outcome, "the schedule reads the code's meaning")
        let shown = TimeSyncError(.invalidValue, "refused", cause: rejection)
        #expect(PollOutcome(failure: shown) == outcome, "the public form keeps it")
        #expect(NTSReplyError(ntp: rejection).pollOutcome == outcome, "an authenticated kiss means the same")
    }

    @Test func anUnsynchronizedServerSaysSo() throws {
        var (exchange, request) = try Self.started()
        var reply = Self.reply(to: request)
        reply.leap = .unsynchronized
        guard case .failed(let error) = exchange.receive(reply.encoded(), at: Self.t4) else {
            Issue.record("accepted an unsynchronized server")
            return
        }
        #expect(PollOutcome(failure: error) == .unsynchronized)
        #expect(PollOutcome(failure: CancellationError()) == .failure)
    }

    @Test func aRoughtimeExchangeDropsWhatDoesNotVerifyAndTakesTheSignedReply() throws {
        let key = try Curve25519.Signing.PrivateKey(rawRepresentation: [UInt8](repeating: 7, count: 32))
        let publicKey = Array(key.publicKey.rawRepresentation)
        let responder = try RoughtimeResponder(longTermKey: key, validity: 1_789_990_000...1_790_090_000)
        var generator = SeededGenerator(seed: 3)
        let request = RoughtimeRequest(versions: [.rfc], nonce: generator.bytes(32), serverKey: publicKey)
        var exchange = RoughtimeClientExchange(request: request, publicKey: publicKey, timeout: .seconds(1))
        let (datagram, deadline) = exchange.start(at: Self.t1, wallTime: Self.wall)
        #expect(datagram == request.packet && deadline == Self.t1.advanced(by: .seconds(1)))
        guard case .listen(nil) = exchange.receive([0, 1, 2, 3], at: Self.t4) else {
            Issue.record("a broken datagram ended the exchange")
            return
        }
        #expect(exchange.dropped.count == 1)
        let signed = try responder.respond(to: [request.packet], now: Self.wall)[0].get()
        guard case .done(let answer) = exchange.receive(signed, at: Self.t4) else {
            Issue.record("the signed reply was not taken")
            return
        }
        #expect(answer.requestSent == Self.t1 && answer.responseReceived == Self.t4)
        #expect(answer.response.validity.contains(UInt64(Self.wall.nanoseconds / 1_000_000_000)))

        var silent = RoughtimeClientExchange(request: request, publicKey: publicKey, timeout: .seconds(1))
        _ = silent.start(at: Self.t1, wallTime: Self.wall)
        _ = silent.receive([9], at: Self.t4)
        guard case .silent(let last?) = silent.finish(at: deadline) else {
            Issue.record("no timeout naming the refused datagram")
            return
        }
        #expect(last is RoughtimeError)
    }
}
