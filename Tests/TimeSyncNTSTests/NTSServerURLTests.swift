#if NTS
import Testing
import TimeSync
import TimeSyncSockets
import TimeSyncNTS

/// `nts://HOST[:PORT]`: the key-exchange server, port 4460 unless given; what is refused, and why.
@Suite struct NTSServerURLTests {
    @Test(arguments: [
        ("nts://time.example", "time.example", 4460, "nts://time.example:4460"),
        ("NTS://time.example:4461/", "time.example", 4461, "nts://time.example:4461"),
        ("nts://127.0.0.1:123", "127.0.0.1", 123, "nts://127.0.0.1:123"),
        ("nts://[::1]", "::1", 4460, "nts://[::1]:4460"),
        ("nts://[::1]:4461", "::1", 4461, "nts://[::1]:4461"),
        ("nts://2001:db8::1", "2001:db8::1", 4460, "nts://[2001:db8::1]:4460"),
    ])
    func accepted(text: String, host: String, port: Int, description: String) throws {
        let server = try NTSServerURL(text)
        #expect(server == NTSServerURL(host: host, port: port))
        #expect(server.description == description)
    }

    @Test(arguments: [
        ("ntp://time.example", "'ntp://time.example': not an nts:// URL"),
        ("time.example", "'time.example': not an nts:// URL"),
        ("nts://", "no host"),
        ("nts://127.0.0.1:4460:1", "'127.0.0.1:4460:1' is neither HOST:PORT nor an IPv6 literal"),
        ("nts://127.0.0.1:0", "port 0"),
    ])
    func refused(text: String, reason: String) {
        #expect {
            try NTSServerURL(text)
        } throws: { error in
            // The public error's code, and the sockets layer's detail as its cause.
            guard let error = error as? TimeSyncError, error.code == .invalidServerAddress,
                let cause = error.cause as? NTPClientError
            else { return false }
            return cause.code == .invalidServerAddress && cause.detail.contains(reason) && error.message.contains(reason)
        }
    }
}
#endif
