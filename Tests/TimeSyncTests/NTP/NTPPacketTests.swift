import Testing
import TimeSync
import TimeSyncWire
import TimeSyncFixtures
import TimeSyncTesting

@Suite struct NTPPacketTests {
    /// A reply captured from chronyd 4.3 (`local stratum 3`, under `faketime +1.5s`) to a request
    /// whose transmit timestamp was `eeabac50.12345678`.
    static let chronyReply = hexBytes(
        """
        240300e8 00000000 00000000 7f7f0101 eeabac4f 88855a54 eeabac50 12345678
        eeabac51 87ace84b eeabac51 87b393c4
        """)
    /// A request captured from `chronyd -Q` (random transmit timestamp).
    static let chronyRequest = hexBytes(
        """
        23000620 00000000 00000000 00000000 00000000 00000000 00000000 00000000
        00000000 00000000 e3204f5c 607afe66
        """)

    @Test func decodesAChronyReply() throws {
        let packet = try NTPPacket(decoding: Self.chronyReply)
        #expect(packet.leap == .noWarning)
        #expect(packet.version == 4)
        #expect(packet.mode == .server)
        #expect(packet.stratum == 3)
        #expect(packet.poll == 0)
        #expect(packet.precision == -24)
        #expect(packet.rootDelay == .zero)
        #expect(packet.rootDispersion == .zero)
        #expect(packet.referenceID == NTPReferenceID(ipv4: 127, 127, 1, 1))
        #expect(packet.referenceID.description == "127.127.1.1")
        #expect(packet.originTimestamp == NTPTimestamp(seconds: 0xeeab_ac50, fraction: 0x1234_5678))
        #expect(packet.receiveTimestamp == NTPTimestamp(rawValue: 0xeeab_ac51_87ac_e84b))
        #expect(packet.transmitTimestamp == NTPTimestamp(rawValue: 0xeeab_ac51_87b3_93c4))
        #expect(packet.extensionFields.isEmpty)
        #expect(packet.messageAuthenticationCode == nil)
        // 0xeeabac51 s after 1900 is 2026-11-21T05:36:17Z.
        #expect(packet.transmitTimestamp.unixTime(near: UnixTime(seconds: 1_790_000_000)).seconds == 0xeeab_ac51 - 2_208_988_800)
    }

    @Test func decodesAChronyRequest() throws {
        let packet = try NTPPacket(decoding: Self.chronyRequest)
        #expect(packet.mode == .client)
        #expect(packet.version == 4)
        #expect(packet.poll == 6)
        #expect(packet.transmitTimestamp.rawValue == 0xe320_4f5c_607a_fe66)
    }

    @Test(arguments: [chronyReply, chronyRequest])
    func capturedPacketsReencodeByteForByte(_ bytes: [UInt8]) throws {
        #expect(try NTPPacket(decoding: bytes).encoded() == bytes)
    }

    @Test func everyFieldRoundTrips() throws {
        var generator = SeededGenerator(seed: 3)
        for _ in 0..<500 {
            let packet = NTPPacket(
                leap: NTPLeapIndicator(rawValue: UInt8.random(in: 0...3, using: &generator))!,
                version: UInt8.random(in: 0...7, using: &generator),
                mode: NTPMode(rawValue: UInt8.random(in: 0...7, using: &generator))!,
                stratum: .random(in: 0...255, using: &generator), poll: .random(in: -128...127, using: &generator),
                precision: .random(in: -128...127, using: &generator),
                rootDelay: NTPShortFormat(rawValue: generator.next()), rootDispersion: NTPShortFormat(rawValue: generator.next()),
                referenceID: NTPReferenceID(rawValue: generator.next()),
                referenceTimestamp: NTPTimestamp(rawValue: generator.next()), originTimestamp: NTPTimestamp(rawValue: generator.next()),
                receiveTimestamp: NTPTimestamp(rawValue: generator.next()), transmitTimestamp: NTPTimestamp(rawValue: generator.next()))
            let bytes = packet.encoded()
            #expect(bytes.count == 48)
            #expect(try NTPPacket(decoding: bytes) == packet)
        }
    }

    @Test(arguments: 0..<48)
    func packetsShorterThan48BytesAreRejected(_ length: Int) {
        expectThrows(NTPPacketError.truncated) {
            try NTPPacket(decoding: Self.chronyReply.prefix(length))
        }
    }

    @Test func extensionFieldsAndMACAreSkippedAndKept() throws {
        var bytes = Self.chronyReply
        let field: [UInt8] = [0x01, 0x04, 0x00, 0x1C] + Array(repeating: 0xAB, count: 24)  // 28-byte field
        let mac: [UInt8] = [0, 0, 0, 7] + Array(repeating: 0xCD, count: 16)  // key 7 + MD5 digest
        bytes += field + mac
        let packet = try NTPPacket(decoding: bytes)
        #expect(packet.stratum == 3)
        #expect(packet.extensionFields == [NTPExtensionField(type: 0x0104, value: Array(repeating: 0xAB, count: 24))])
        #expect(packet.messageAuthenticationCode == mac)
        #expect(packet.encoded() == bytes)
        // An NTPv3 packet's trailer is kept whole.
        var v3 = Self.chronyReply
        v3[0] = 0x1C
        v3 += [1, 2, 3]
        #expect(try NTPPacket(decoding: v3).messageAuthenticationCode == [1, 2, 3])
    }

    @Test(arguments: [
        [0x00, 0x01, 0x00, 0x0C] + Array(repeating: UInt8(0), count: 24),  // length 12 < 16
        [0x00, 0x01, 0x00, 0x1E] + Array(repeating: UInt8(0), count: 24),  // length not a multiple of 4
        [0x00, 0x01, 0x01, 0x00] + Array(repeating: UInt8(0), count: 24),  // length past the end
        Array(repeating: UInt8(0), count: 7),  // a trailer that is no MAC
    ])
    func malformedExtensionAreasAreRejected(_ trailer: [UInt8]) {
        expectThrows(NTPPacketError.malformedExtensionField) {
            try NTPPacket(decoding: Self.chronyReply + trailer)
        }
    }

    @Test func randomBytesNeverTrap() {
        var generator = SeededGenerator(seed: 99)
        for _ in 0..<5000 {
            let bytes = (0..<Int.random(in: 0...120, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            if let packet = try? NTPPacket(decoding: bytes) {
                #expect(packet.encoded() == bytes)
            }
        }
    }

    @Test func referenceIDText() {
        #expect(NTPReferenceID.rate.ascii == "RATE")
        #expect(NTPReferenceID(ascii: "GPS")?.bytes == [0x47, 0x50, 0x53, 0])
        #expect(NTPReferenceID(ascii: "GPS")?.description == "GPS")
        #expect(NTPReferenceID(ascii: "TOOLONG") == nil)
        #expect(NTPReferenceID.rate.kissAction == .reducePollRate)
        #expect(NTPReferenceID.deny.kissAction == .stopUsingServer)
        #expect(NTPReferenceID.restricted.kissAction == .stopUsingServer)
        #expect(NTPReferenceID(ascii: "INIT")!.kissAction == .discardReply)
    }
}
