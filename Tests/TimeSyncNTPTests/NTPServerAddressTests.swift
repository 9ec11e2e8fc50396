import Testing
import TimeSync
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
        for (text, description) in [("ntp://[::1]:12300", "[::1]:12300"), ("pool.ntp.org", "pool.ntp.org:123"), ("ntp://10.0.0.1:9/", "10.0.0.1:9")] {
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
