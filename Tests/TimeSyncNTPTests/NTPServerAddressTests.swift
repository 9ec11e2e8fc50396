import Testing
import TimeSync
import TimeSyncWire
import TimeSyncNTP
import TimeSyncNTPServer

/// `NTPServerAddress(validating:)`: what ``init(parsing:)`` accepts, and the reason for the rest.
struct NTPServerAddressTests {
    @Test(
        "a bad address is invalidServerAddress, quoting the text and saying why",
        arguments: [
            ("ntp://127.0.0.1:99999", "the port 99999 is outside 1–65535"), ("ntp://", "no host"), ("", "no host"),
            ("ntp://:123", "no host"), ("ntp://host:abc", "the port 'abc' is not a number"),
            ("ntp://[::1", "'[' has no ']'"), ("ntp://[::1]x", "expected ':PORT' after ']'"),
            ("ntp://host/path", "no path"), ("ntp://127.0.0.1:0", "the port 0 is outside 1–65535"),
            ("ntp://127.0.0.1:123:1", "'127.0.0.1:123:1' is neither HOST:PORT nor an IPv6 literal"),
            ("127.0.0.1:4460:1", "is neither HOST:PORT nor an IPv6 literal"), ("[127.0.0.1]:123", "neither HOST:PORT nor an IPv6 literal"),
            ("ntp://time.example%00", "'time.example%00' is not a host name or IP address"),
            ("ntp://time\u{0}.example", "control character"), ("time.example\n:123", "control character"),
            // What DNS cannot carry is the caller's mistake, said before any lookup.
            ("ntp://\(String(repeating: "a", count: 300)).example", "is 300 octets long; a DNS label has at most 63"),
            ("ntp://\(String(repeating: "a", count: 64)):123", "is 64 octets long"),
            ("ntp://\(Array(repeating: String(repeating: "b", count: 63), count: 4).joined(separator: "."))", "is 255 octets long; a DNS name has at most 253"),
            ("ntp://time..example", "has an empty label"), ("ntp://.example", "has an empty label"),
        ])
    func reason(_ text: String, _ reason: String) {
        #expect(NTPServerAddress(parsing: text) == nil)
        do {
            _ = try NTPServerAddress(validating: text)
            Issue.record("'\(text)' was accepted")
        } catch {
            #expect(error.code == .invalidServerAddress)
            #expect(error.description.hasPrefix("invalid NTP server address: '\(text)': "), "\(error)")
            #expect(error.description.contains(reason), "\(error)")
        }
    }

    @Test("a good address parses the same both ways, and prints host:port")
    func good() throws {
        let longest = Array(repeating: String(repeating: "c", count: 63), count: 3).joined(separator: ".") + "." + String(repeating: "d", count: 61)
        for (text, description) in [
            ("ntp://[::1]:12300", "[::1]:12300"), ("pool.ntp.org", "pool.ntp.org:123"), ("ntp://10.0.0.1:9/", "10.0.0.1:9"),
            ("ntp://pool.ntp.org.", "pool.ntp.org.:123"), ("ntp://\(longest)", "\(longest):123"),
            // 40 non-ASCII letters are 80 octets in UTF-8, fewer in the xn-- form DNS carries: accepted.
            ("ntp://\(String(repeating: "ü", count: 40)).example", "\(String(repeating: "ü", count: 40)).example:123"),
        ] {
            let address = try NTPServerAddress(validating: text)
            #expect(NTPServerAddress(parsing: text) == address)
            #expect(address.description == description)
        }
    }

    /// A NUL ends a C string: the text after it must not be dropped on the way to the resolver.
    @Test func anIPLiteralWithANULIsNoAddress() {
        #expect(IPAddress("127.0.0.1\0evil") == nil)
        #expect(IPAddress("::1\0") == nil)
        #expect(IPAddress("127.0.0.1") != nil)
    }
}

/// The servers an app ships with when it names none, and the NTP Pool only through a vendor zone.
@Suite struct DefaultServerTests {
    /// Two operators that invite public use, two servers each, none of them the pool (which asks
    /// vendors not to hard-code its zones), none of them smearing.
    @Test func theDefaultsAreNotThePoolAndFormAMajority() {
        #expect(NTPServerAddress.defaultServers.map(\.host) == ["sth1.ntp.se", "sth2.ntp.se", "ntp1.time.nl", "ntp2.time.nl"])
        #expect(NTPServerAddress.defaultServers.allSatisfy { $0.port == 123 && !$0.host.hasSuffix("pool.ntp.org") })
        let sync = TimeSynchronizer.ntp(fallbackHosts: [])
        #expect(sync.sources.map(\.name) == NTPServerAddress.defaultServers.map(\.description))
    }

    @Test func aVendorZoneIsThePoolsFourZonesUnderTheVendorsLabel() throws {
        let zone = try [NTPServerAddress].pool(vendor: "Acme-Clock")
        #expect(zone.map(\.host) == (0..<4).map { "\($0).acme-clock.pool.ntp.org" })
        let sync = TimeSynchronizer.ntp(try .pool(vendor: "acme"), fallbackHosts: [])
        #expect(sync.sources.count == 4)
    }

    @Test(arguments: ["", "-acme", "acme-", "ac.me", "acme zone", "ac/me", String(repeating: "a", count: 64), "ácme"])
    func aVendorThatIsNotOneLabelIsRefused(_ vendor: String) {
        let error = #expect(throws: TimeSyncError.self) { try [NTPServerAddress].pool(vendor: vendor) }
        #expect(error?.code == .invalidServerAddress)
        #expect(error?.message.contains("vendor zone") == true)
    }
}
