import Testing
import TimeSync
import TimeSyncFixtures
import TimeSyncTesting
@testable import TimeSyncHTTP

@Suite("TimeSync-Time structured field")
struct HTTPTimeHeaderTests {
    @Test("encodes the documented example byte for byte")
    func documentedExample() throws {
        let header = HTTPTimeHeader(
            serverReceive: UnixTime(seconds: 1_763_701_484, nanoseconds: 123_456_789),
            serverTransmit: UnixTime(seconds: 1_763_701_484, nanoseconds: 123_987_654),
            nonce: "q8Zt1v0cYx3LmR2a")
        #expect(header.fieldValue == #"v=1, s=1763701484, t2=123456789, t3=123987654, n="q8Zt1v0cYx3LmR2a""#)
        #expect(try HTTPTimeHeader(parsing: header.fieldValue) == header)
    }

    @Test("round-trips random values (seeded), across second boundaries and before 1970")
    func roundTrip() throws {
        var generator = SeededGenerator(seed: 9651)
        for _ in 0..<1000 {
            let receive = Int64.random(in: -4_000_000_000_000_000_000...4_000_000_000_000_000_000, using: &generator)
            let processing = Int64.random(in: 0...5_000_000_000, using: &generator)
            let nonce: String? = Bool.random(using: &generator) ? HTTPTimeNonce.random(using: &generator) : nil
            let uncertainty: Duration? = Bool.random(using: &generator) ? .nanoseconds(Int64.random(in: 0...1_000_000_000, using: &generator)) : nil
            let header = HTTPTimeHeader(
                serverReceive: UnixTime(nanoseconds: receive), serverTransmit: UnixTime(nanoseconds: receive + processing),
                nonce: nonce, uncertainty: uncertainty)
            #expect(try HTTPTimeHeader(parsing: header.fieldValue) == header)
        }
    }

    @Test("unknown members and parameters are ignored; field lines combine")
    func forwardCompatible() throws {
        let parsed = try HTTPTimeHeader(parsing: #"v=1;x=2, s=10, future=?1, t2=5;unit=ns, t3=7, n="abc", extra=(1 2)"#)
        #expect(parsed.serverReceive == UnixTime(nanoseconds: 10_000_000_005))
        #expect(parsed.serverTransmit == UnixTime(nanoseconds: 10_000_000_007))
        #expect(parsed.nonce == "abc")
        #expect(parsed.uncertainty == nil)
        let combined = try HTTPTimeHeader(parsing: "v=1, s=10" + ", " + "t2=1, t3=2, u=500")
        #expect(combined.uncertainty == .nanoseconds(500))
    }

    @Test(
        "malformed values are typed errors",
        arguments: [
            ("", HTTPTimeError.malformedTimeHeader),
            ("garbage value!", .malformedTimeHeader),
            ("v=1, s=10, t2=1", .malformedTimeHeader),
            ("s=10, t2=1, t3=2", .malformedTimeHeader),
            ("v=2, s=10, t2=1, t3=2", .unsupportedVersion),
            ("v=1, s=10, t2=1.5, t3=2", .malformedTimeHeader),
            (#"v=1, s="10", t2=1, t3=2"#, .malformedTimeHeader),
            ("v=1, s=10, t2=1, t3=(2)", .malformedTimeHeader),
            ("v=1, s=10, t2=1, t3=2, n=token", .malformedTimeHeader),
            ("v=1, s=10, t2=1, t3=2, u=-1", .malformedTimeHeader),
            ("v=1, s=999999999999999, t2=1, t3=2", .malformedTimeHeader),
            ("v=1, s=10, t2=1, t3=1000000000000000", .malformedTimeHeader),
            ("v=1, s=10, t2=1, t3=2,", .malformedTimeHeader),
        ] as [(String, HTTPTimeError)])
    func malformed(_ value: String, error: HTTPTimeError) {
        expectThrows(error) { try HTTPTimeHeader(parsing: value) }
    }

    @Test("nonces: generated ones are valid and reproducible from a seed; only strings are echoed")
    func nonces() {
        var a = SeededGenerator(seed: 1)
        var b = SeededGenerator(seed: 1)
        let nonce = HTTPTimeNonce.random(using: &a)
        #expect(nonce == HTTPTimeNonce.random(using: &b))
        #expect(nonce.utf8.count == 16 && HTTPTimeNonce.isValid(nonce))
        #expect(HTTPTimeNonce.parse(HTTPTimeNonce.fieldValue(nonce)) == nonce)
        #expect(HTTPTimeNonce.parse("token") == nil)
        #expect(HTTPTimeNonce.parse(#""unterminated"#) == nil)
        #expect(HTTPTimeNonce.parse("\"" + String(repeating: "a", count: 65) + "\"") == nil)
        #expect(HTTPTimeNonce.parse(#""""#) == nil)
    }
}

@Suite("TimeSync-Time fast writer")
struct HTTPTimeHeaderWriterTests {
    @Test(
        "the hand-written field value is byte-identical to the structured-field serializer's",
        arguments: [
            (Int64(1_763_701_484_123_456_789), Int64(1_763_701_484_123_987_654), String?.none, Duration?.none),
            (0, 5, "q8Zt1v0cYx3LmR2a", .nanoseconds(1_500)),
            (-1_000_000_001, -999_999_999, "with \"quotes\" and \\ backslash", .zero),
            (1_999_999_999_999_999_999, 2_000_000_000_000_000_000, " spaces ~!@#$%^&*() ", .seconds(2)),
            (1_763_701_484_000_000_000, 1_763_701_484_000_000_000 + 11 * 86_400 * 1_000_000_000, "x", .seconds(-1)),
            (1_763_701_484_000_000_000, 1_763_701_484_000_000_001, "bad\u{7}nonce", .nanoseconds(Int64.max)),
            // The longest field: every member at its widest, a 64-character nonce all escapes.
            (1_999_999_999_999_999_999, 2_000_000_000_000_000_000, String(repeating: "\"", count: 64), .nanoseconds(Int64.max)),
        ])
    func byteIdentical(receive: Int64, transmit: Int64, nonce: String?, uncertainty: Duration?) throws {
        let header = HTTPTimeHeader(
            serverReceive: UnixTime(nanoseconds: receive), serverTransmit: UnixTime(nanoseconds: transmit), nonce: nonce,
            uncertainty: uncertainty)
        #expect(header.fieldValue == header.serializedFieldValue)
        #expect(try HTTPTimeHeader(parsing: header.fieldValue).serverReceive == header.serverReceive)
    }
}
