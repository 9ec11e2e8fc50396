#if NTS
import Testing
import TimeSync
import TimeSyncWire
import TimeSyncFixtures
@testable import TimeSyncNTS

/// NTS-KE records and messages (RFC 8915 §4): reading streams in pieces, requests and responses, and
/// every way a response can be refused.
@Suite struct NTSKERecordTests {
    func decode(_ records: [NTSKERecord], end: Bool = true) throws -> [NTSKERecord] {
        var decoder = NTSKERecordDecoder(maximumMessageSize: 4096)
        try decoder.append(NTSKERecord.encode(records + (end ? [.endOfMessage] : [])))
        #expect(decoder.isComplete == end)
        return decoder.records
    }

    let cookie = [UInt8](repeating: 0xCC, count: 100)

    @Test func aStreamReadsTheSameInAnyPieces() throws {
        let response = NTSKEResponse(algorithm: 15, cookies: Array(repeating: cookie, count: 8), server: "time.example", port: 12_345)
        let bytes = NTSKERecord.encode(response.records)
        for piece in [1, 3, 7, 64, bytes.count] {
            var decoder = NTSKERecordDecoder(maximumMessageSize: 4096)
            var start = 0
            while start < bytes.count {
                try decoder.append(bytes[start..<min(bytes.count, start + piece)])
                start += piece
            }
            #expect(decoder.isComplete)
            let parsed = try NTSKEResponse(records: decoder.records)
            #expect(parsed == response)
        }
    }

    @Test func streamsThatBreakTheRulesAreRefused() throws {
        var decoder = NTSKERecordDecoder(maximumMessageSize: 64)
        expectThrows(NTSKEError.messageTooLarge) { try decoder.append([UInt8](repeating: 0, count: 65)) }
        var after = NTSKERecordDecoder(maximumMessageSize: 64)
        expectThrows(NTSKEError.malformedMessage) { try after.append(NTSKERecord.endOfMessage.encoded() + [0]) }
        var body = NTSKERecordDecoder(maximumMessageSize: 64)
        expectThrows(NTSKEError.malformedMessage) { try body.append([0x80, 0, 0, 1, 9]) }
    }

    @Test func responsesThatCannotBeUsedAreRefusedWithTheReason() throws {
        let good: [NTSKERecord] = [.nextProtocol([0]), .aeadAlgorithm([15]), .newCookie(cookie)]
        #expect(try NTSKEResponse(records: decode(good)).cookies == [cookie])
        expectThrows(NTSKEError.serverError) { try NTSKEResponse(records: decode([.error(.badRequest)])) }
        expectThrows(NTSKEError.unsupportedProtocol) { try NTSKEResponse(records: decode([.nextProtocol([]), .aeadAlgorithm([15]), .newCookie(cookie)])) }
        expectThrows(NTSKEError.unsupportedAlgorithm) { try NTSKEResponse(records: decode([.nextProtocol([0]), .aeadAlgorithm([30]), .newCookie(cookie)])) }
        expectThrows(NTSKEError.noCookies) { try NTSKEResponse(records: decode([.nextProtocol([0]), .aeadAlgorithm([15])])) }
        expectThrows(NTSKEError.unrecognizedCriticalRecord) {
            try NTSKEResponse(records: decode(good + [NTSKERecord(type: 0x4000, isCritical: true)]))
        }
        #expect(try NTSKEResponse(records: decode(good + [NTSKERecord(type: 0x4000, isCritical: false)])).cookies.count == 1, "an unknown record that is not critical is skipped")
        expectThrows(NTSKEError.badServerNegotiation) { try NTSKEResponse(records: decode(good + [.ntpPort(0)])) }
        expectThrows(NTSKEError.badServerNegotiation) { try NTSKEResponse(records: decode(good + [.ntpServer("bad host/")])) }
        // A NUL would cut the host where C reads it (127.0.0.1), a line break would split a log line.
        for host in ["127.0.0.1\0evil", "time.example\0.attacker", "time.example\n", "time\u{7F}.example", "tab\tbed"] {
            expectThrows(NTSKEError.badServerNegotiation, "\(host.debugDescription)") { try NTSKEResponse(records: decode(good + [.ntpServer(host)])) }
        }
        expectThrows(NTSKEError.malformedMessage) { try NTSKEResponse(records: decode(good + [.newCookie([UInt8](repeating: 1, count: 225))])) }
        expectThrows(NTSKEError.malformedMessage) { try NTSKEResponse(records: decode(good + [.aeadAlgorithm([15])])) }
        let error = try #require(throws: NTSKEError.self) { try NTSKEResponse(records: decode([.error(.internalServerError)])) }
        #expect(error.serverCode == .internalServerError)
        #expect(error.description.contains("internal server error"))
    }

    @Test func aServerReadsRequestsAndRefusesWhatItCannotServe() throws {
        let request = try NTSKERequest(records: decode(NTSKERequest().records.dropLast()))
        #expect(NTSKEResponse.refusal(of: request) == nil)
        let other = try NTSKERequest(records: decode([.nextProtocol([0]), .aeadAlgorithm([30])]))
        #expect(NTSKEResponse.refusal(of: other) == [.nextProtocol([0]), .aeadAlgorithm([]), .endOfMessage])
        let otherProtocol = try NTSKERequest(records: decode([.nextProtocol([9]), .aeadAlgorithm([15])]))
        #expect(NTSKEResponse.refusal(of: otherProtocol) == [.nextProtocol([]), .endOfMessage])
        let unknown = try #require(throws: NTSKEError.self) {
            try NTSKERequest(records: decode([.nextProtocol([0]), NTSKERecord(type: 0x1234, isCritical: true)]))
        }
        #expect(unknown.errorCode == .unrecognizedCriticalRecord)
        let missing = try #require(throws: NTSKEError.self) { try NTSKERequest(records: decode([.aeadAlgorithm([15])])) }
        #expect(missing.errorCode == .badRequest)
        expectThrows(NTSKEError.malformedMessage) { try NTSKERequest(records: decode([.nextProtocol([0]), .newCookie(cookie)])) }
    }
}
#endif
