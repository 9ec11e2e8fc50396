import Testing
import TimeSync
import TimeSyncWire
import TimeSyncFixtures
import TimeSyncTesting

@Suite("HTTP-date parser (RFC 9110 §5.6.7)")
struct HTTPDateTests {
    /// 2026-11-21T05:04:44Z: the reference for RFC 850 two-digit years.
    static let reference = UnixTime(seconds: 1_795_237_484)

    @Test(
        "valid dates in all three formats",
        arguments: [
            ("Sun, 06 Nov 1994 08:49:37 GMT", 784_111_777),
            ("Sunday, 06-Nov-94 08:49:37 GMT", 784_111_777),
            ("Sun Nov  6 08:49:37 1994", 784_111_777),
            ("Tue, 29 Feb 2000 23:59:59 GMT", 951_868_799),
            ("Sat, 21 Nov 2026 05:04:44 GMT", 1_795_237_484),
            ("Thu, 01 Jan 1970 00:00:00 GMT", 0),
            ("Sat, 01 Jan 1678 00:00:00 GMT", -9_214_560_000),
            ("Tue, 31 Dec 2261 23:59:59 GMT", 9_214_646_399),
            ("Thu Jan 01 00:00:00 1970", 0),
            // A leap second counts as the first second of the next day in Unix time.
            ("Sat, 31 Dec 2016 23:59:60 GMT", 1_483_228_800),
            // RFC 850 two-digit years: within 50 years ahead stays in this century, beyond goes back.
            ("Wednesday, 01-Jan-76 00:00:00 GMT", 3_345_062_400),
            ("Saturday, 01-Jan-77 00:00:00 GMT", 220_924_800),
            ("Tuesday, 15-Jun-99 00:00:00 GMT", 929_404_800),
            // Optional whitespace around a field value is not part of it.
            ("  Sun, 06 Nov 1994 08:49:37 GMT\t", 784_111_777),
        ] as [(String, Int64)])
    func parsesValidDates(_ text: String, seconds: Int64) throws {
        #expect(try HTTPDate.parse(text, reference: Self.reference) == UnixTime(seconds: seconds))
    }

    @Test(
        "malformed dates are typed errors",
        arguments: [
            ("", HTTPDateError.empty),
            ("   ", .empty),
            ("yesterday", .unrecognizedFormat),
            ("1994-11-06T08:49:37Z", .unrecognizedFormat),
            ("Sun, 6 Nov 1994 08:49:37 GMT", .unrecognizedFormat),
            ("Sun, 06 Nov 1994 08:49:37 GMTX", .unrecognizedFormat),
            ("Sun, 06 Nov 1994 08:49:37 UTC", .missingGMT),
            ("Sun, 06 Nov 1994 08:49:37 gmt", .missingGMT),
            ("sun, 06 Nov 1994 08:49:37 GMT", .invalidDayName),
            ("Sunday, 06 Nov 1994 08:49:37 GMT", .unrecognizedFormat),
            ("Mon, 06 Nov 1994 08:49:37 GMT", .weekdayMismatch),
            ("Sun, 06 nov 1994 08:49:37 GMT", .invalidMonth),
            ("Sun, 06 Foo 1994 08:49:37 GMT", .invalidMonth),
            ("Sun, 00 Nov 1994 08:49:37 GMT", .invalidDay),
            ("Fri, 31 Nov 1994 08:49:37 GMT", .invalidDay),
            ("Thu, 29 Feb 2001 08:49:37 GMT", .invalidDay),
            ("Sun, 06 Nov 1994 24:00:00 GMT", .invalidTime),
            ("Sun, 06 Nov 1994 08:60:37 GMT", .invalidTime),
            ("Sun, 06 Nov 1994 08:49:60 GMT", .invalidTime),
            ("Sun, 06 Nov 1994 08:49:3x GMT", .unexpectedCharacter),
            ("Sun, 06 Nov 1994 08-49-37 GMT", .unexpectedCharacter),
            ("Sun,_06 Nov 1994 08:49:37 GMT", .unexpectedCharacter),
            ("Sun, 06 Nov +994 08:49:37 GMT", .unexpectedCharacter),
            ("Wed, 01 Jan 1000 00:00:00 GMT", .invalidYear),
            ("Sun, 01 Jan 9999 00:00:00 GMT", .invalidYear),
            ("Sunday, 06-Nov-1994 08:49:37 GMT", .unrecognizedFormat),
            ("Sunday, 06-Nov-94 08:49:37 UTC", .missingGMT),
            ("Sun, 06-Nov-94 08:49:37 GMT", .unrecognizedFormat),
            ("Sun Nov 06 08:49:37 1994 GMT", .unrecognizedFormat),
            ("Sun Nov 6 08:49:37 1994", .unrecognizedFormat),
            ("Sun Nov  6 08:49:37 94", .unrecognizedFormat),
            ("Sun Nov  x 08:49:37 1994", .unexpectedCharacter),
            ("Mon Nov  6 08:49:37 1994", .weekdayMismatch),
            ("Funday, 06-Nov-94 08:49:37 GMT", .invalidDayName),
        ] as [(String, HTTPDateError)])
    func rejectsMalformedDates(_ text: String, error: HTTPDateError) {
        expectThrows(error) { try HTTPDate.parse(text, reference: Self.reference) }
    }

    @Test("IMF-fixdate formatting round-trips through the parser (seeded)")
    func roundTrip() throws {
        var generator = SeededGenerator(seed: 0x7155)
        for _ in 0..<2000 {
            let seconds = Int64.random(in: -9_214_560_000...9_214_646_399, using: &generator)
            let time = UnixTime(seconds: seconds, nanoseconds: Int64.random(in: 0..<1_000_000_000, using: &generator))
            let text = HTTPDate.imfFixdate(time)
            #expect(text.utf8.count == 29)
            #expect(try HTTPDate.parse(text, reference: Self.reference) == UnixTime(seconds: seconds))
        }
        #expect(HTTPDate.imfFixdate(UnixTime(seconds: 784_111_777)) == "Sun, 06 Nov 1994 08:49:37 GMT")
    }
}
