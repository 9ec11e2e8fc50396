import Testing
import TimeSync

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
