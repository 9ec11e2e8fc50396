import Testing
import TimeSync
import TimeSyncWire
import TimeSyncServerSupport
import TimeSyncFixtures

@Suite struct NTPServerResponderTests {
    static let request = NTPPacket(version: 4, mode: .client, poll: 6, transmitTimestamp: NTPTimestamp(rawValue: 0xe320_4f5c_607a_fe66))

    @Test func answersClientRequestsWithServerReplies() {
        guard case .answer(let request) = NTPServerResponder.check(Self.request.encoded()) else {
            Issue.record("request not accepted")
            return
        }
        let receive = UnixTime(seconds: 1_790_000_000, nanoseconds: 1_000)
        let transmit = receive.advanced(by: .microseconds(20))
        let policy = NTPServerPolicy(stratum: 2, referenceID: NTPReferenceID(ascii: "GPS")!, precision: -22)
        let reply = NTPServerResponder.reply(to: request, policy: policy, receivedAt: receive, transmitAt: transmit)
        #expect(reply.mode == .server)
        #expect(reply.version == 4)
        #expect(reply.stratum == 2)
        #expect(reply.precision == -22)
        #expect(reply.referenceID.ascii == "GPS")
        #expect(reply.originTimestamp == Self.request.transmitTimestamp)
        #expect(reply.receiveTimestamp == NTPTimestamp(receive))
        #expect(reply.transmitTimestamp == NTPTimestamp(transmit))
        #expect(reply.encoded().count == 48)
    }

    @Test func echoesTheClientsVersion() {
        var v3 = Self.request
        v3.version = 3
        let reply = NTPServerResponder.reply(to: v3, policy: .init(), receivedAt: .init(nanoseconds: 1), transmitAt: .init(nanoseconds: 2))
        #expect(reply.version == 3)
    }

    @Test func kissesCarryTheCodeAndNoUsableTime() {
        let kiss = NTPServerResponder.kiss(.rate, to: Self.request)
        #expect(kiss.stratum == 0)
        #expect(kiss.referenceID == .rate)
        #expect(kiss.leap == .unsynchronized)
        #expect(kiss.originTimestamp == Self.request.transmitTimestamp)
        #expect(kiss.transmitTimestamp.isZero)
    }

    @Test(arguments: [
        (NTPPacket(mode: .server).encoded(), NTPServerDropReason.notClientMode),
        (NTPPacket(mode: .control).encoded(), .notClientMode),
        (NTPPacket(mode: .symmetricActive).encoded(), .notClientMode),
        (NTPPacket(version: 0, mode: .client).encoded(), .unsupportedVersion),
        (NTPPacket(version: 5, mode: .client).encoded(), .unsupportedVersion),
        (Array(NTPPacket(mode: .client).encoded().prefix(20)), .malformed),
        ([], .malformed),
    ])
    func dropsWhatIsNotAClientRequest(_ bytes: [UInt8], _ reason: NTPServerDropReason) {
        #expect(NTPServerResponder.check(bytes) == .drop(reason))
    }
}

/// The server's whole request policy (validate → rate limit → reply, kiss or drop), sans I/O: a rate
/// limiter and chosen instants, no socket.
@Suite struct NTPServerRequestPolicyTests {
    static let request = NTPServerResponderTests.request.encoded()
    static let client = NTPRateLimitKey(ipv4: 0x7F00_0001)

    static func respond(
        _ bytes: [UInt8], limiter: inout NTPRateLimiter<NTPRateLimitKey>, at seconds: Double, transmitReads: inout Int
    ) -> ServedDatagram {
        let arrival = MonotonicInstant(nanoseconds: Int64(seconds * 1e9))
        let receivedAt = UnixTime(seconds: 1_790_000_000)
        var reads = 0
        let action = NTPServerResponder.serve(
            bytes, policy: NTPServerPolicy(), receivedAt: receivedAt,
            admit: { limiter.decide(client, at: arrival) }, minimumPoll: limiter.minimumPoll,
            transmitAt: {
                reads += 1
                return receivedAt.advanced(by: .microseconds(10))
            })
        transmitReads += reads
        return action
    }

    @Test func withinTheLimitEveryRequestIsAnsweredWithAtLeastTheLimitsPoll() {
        var limiter = NTPRateLimiter<NTPRateLimitKey>(rate: 1.0 / 16, burst: 4, kissEvery: 16, seed: 1)
        var reads = 0
        guard case .reply(let reply) = Self.respond(Self.request, limiter: &limiter, at: 1, transmitReads: &reads) else {
            Issue.record("expected a reply")
            return
        }
        #expect(limiter.minimumPoll == 4)
        #expect(reply.poll == 6, "the request's own poll, above the limit's floor")
        #expect(reply.originTimestamp == NTPServerResponderTests.request.transmitTimestamp)
        #expect(reads == 1, "T3 is read once, for the reply")
        var eager = NTPServerResponderTests.request
        eager.poll = 1
        guard case .reply(let raised) = Self.respond(eager.encoded(), limiter: &limiter, at: 2, transmitReads: &reads) else {
            Issue.record("expected a reply")
            return
        }
        #expect(raised.poll == 4, "never below the interval the limit allows")
    }

    @Test func overTheLimitTheFirstIsKissedThenMostAreDropped() {
        var limiter = NTPRateLimiter<NTPRateLimitKey>(rate: 1.0 / 16, burst: 2, kissEvery: 4, seed: 1)
        var reads = 0
        var actions: [String] = []
        for i in 0..<12 {
            switch Self.respond(Self.request, limiter: &limiter, at: 1 + Double(i) * 0.01, transmitReads: &reads) {
            case .reply: actions.append("reply")
            case .kiss(let kiss):
                #expect(kiss.stratum == 0 && kiss.referenceID == .rate && kiss.poll == limiter.minimumPoll)
                actions.append("kiss")
            case .drop(let reason):
                #expect(reason == .rateLimited)
                actions.append("drop")
            case .authenticatedReply, .negativeAcknowledgment: actions.append("nts")
            }
        }
        #expect(actions == ["reply", "reply", "kiss", "drop", "drop", "drop", "kiss", "drop", "drop", "drop", "kiss", "drop"])
        #expect(reads == 2, "no clock read for a kiss or a drop")
    }

    @Test func invalidDatagramsAreDroppedBeforeTheLimiterSeesThem() {
        var limiter = NTPRateLimiter<NTPRateLimitKey>(rate: 1.0 / 16, burst: 1, kissEvery: 1, seed: 1)
        var reads = 0
        var serverMode = NTPServerResponderTests.request
        serverMode.mode = .server
        var version5 = NTPServerResponderTests.request
        version5.version = 5
        let cases: [([UInt8], NTPServerDropReason)] = [
            (Array(Self.request.prefix(47)), .malformed),
            (serverMode.encoded(), .notClientMode),
            (version5.encoded(), .unsupportedVersion),
            (Self.request + [UInt8](repeating: 0, count: 2100), .oversize),
        ]
        for (bytes, reason) in cases {
            #expect(Self.respond(bytes, limiter: &limiter, at: 1, transmitReads: &reads) == .drop(reason))
        }
        // The one token is still there: invalid datagrams did not spend it.
        guard case .reply = Self.respond(Self.request, limiter: &limiter, at: 1, transmitReads: &reads) else {
            Issue.record("expected a reply")
            return
        }
        #expect(reads == 1)
    }
}
