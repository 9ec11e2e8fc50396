import Testing
@testable import TimeSync
@testable import TimeSyncWire

/// The one duration formatter and the one `host:port` formatter every module's messages use.
struct ReadableTests {
    @Test(
        "durations read in µs below a millisecond, ms below a second, s above",
        arguments: [
            (Duration.nanoseconds(12_345), "12.3 µs"), (.microseconds(4_560), "4.56 ms"), (.milliseconds(1_234), "1.234 s"),
            (.zero, "0.0 µs"), (.milliseconds(-250), "-250.00 ms"), (.seconds(3_600), "3600.000 s"),
        ])
    func duration(_ duration: Duration, _ text: String) {
        #expect(duration.readable == text)
    }

    @Test("a signed duration starts with + or -")
    func signed() {
        #expect(Duration.milliseconds(5).signedReadable == "+5.00 ms")
        #expect(Duration.milliseconds(-5).signedReadable == "-5.00 ms")
        #expect(Duration.readable(seconds: 1.5, signed: true) == "+1.500 s")
    }

    @Test("seconds that are not finite read as -", arguments: [Double.nan, .infinity, -.infinity])
    func notFinite(_ seconds: Double) {
        #expect(Duration.readable(seconds: seconds) == "-")
    }

    @Test(
        "host:port puts an IPv6 literal in brackets, once",
        arguments: [
            ("127.0.0.1", 123, "127.0.0.1:123"), ("::1", 8080, "[::1]:8080"), ("[::1]", 8080, "[::1]:8080"),
            ("fe80::1%eth0", 123, "[fe80::1%eth0]:123"), ("time.example.com", 443, "time.example.com:443"),
        ])
    func hostPort(_ host: String, _ port: Int, _ text: String) {
        #expect(HostPort.format(host: host, port: port) == text)
    }

    @Test("without a port, host:port is the host, bracketed when IPv6")
    func hostWithoutPort() {
        #expect(HostPort.format(host: "example.com", port: nil) == "example.com")
        #expect(HostPort.format(host: "2001:db8::1", port: nil) == "[2001:db8::1]")
    }
}
