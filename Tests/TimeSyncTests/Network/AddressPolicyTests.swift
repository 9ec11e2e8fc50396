import Testing
import TimeSync
import TimeSyncWire

/// IP literals, where addresses lead, and which of a name's addresses a client uses.
@Suite struct AddressPolicyTests {
    static func endpoint(_ text: String, port: Int = 123) -> IPEndpoint { IPEndpoint(host: text, port: port)! }

    @Test(arguments: [
        ("8.8.8.8", IPAddress.Scope.global), ("192.0.2.1", .global), ("127.0.0.1", .loopback), ("127.1.2.3", .loopback),
        ("10.0.0.5", .privateNetwork), ("172.16.0.1", .privateNetwork), ("172.31.255.255", .privateNetwork), ("172.32.0.1", .global),
        ("192.168.1.1", .privateNetwork), ("100.64.0.1", .privateNetwork), ("169.254.10.1", .linkLocal), ("0.0.0.0", .unusable),
        ("224.0.0.1", .unusable), ("255.255.255.255", .unusable), ("::1", .loopback), ("::", .unusable), ("fe80::1", .linkLocal),
        ("fc00::1", .privateNetwork), ("fd12:3456::1", .privateNetwork), ("ff02::1", .unusable), ("2001:db8::1", .global),
        ("2606:4700::1111", .global), ("::ffff:10.0.0.1", .privateNetwork), ("::ffff:8.8.8.8", .global),
        ("64:ff9b::8.8.8.8", .global), ("64:ff9b::a00:1", .privateNetwork),
    ])
    func scopes(text: String, scope: IPAddress.Scope) throws {
        #expect(try #require(IPAddress(text)).scope == scope)
    }

    @Test(arguments: ["", "pool.ntp.org", "1.2.3", "256.1.1.1", "[::1]", "::1%eth0", "1.2.3.4:123", "::g"])
    func textThatIsNoLiteral(text: String) {
        #expect(IPAddress(text) == nil)
    }

    @Test func canonicalText() throws {
        #expect(try #require(IPAddress("2001:0DB8:0:0:1:0:0:1")).description == "2001:db8::1:0:0:1")
        #expect(try #require(IPAddress("::")).description == "::")
        #expect(try #require(IPAddress("fe80::")).description == "fe80::")
        #expect(try #require(IPAddress("192.0.2.10")).description == "192.0.2.10")
        #expect(Self.endpoint("2001:db8::7").description == "[2001:db8::7]:123")
        #expect(IPAddress(bytes: [1, 2, 3]) == nil)
        #expect(IPEndpoint(host: "127.0.0.1", port: 70_000) == nil)
    }

    @Test func aPublicNameNeverLeadsIntoTheLocalNetwork() {
        let answers = ["10.0.0.5", "127.0.0.1", "169.254.1.1", "fe80::1", "fd00::1"].map { Self.endpoint($0) }
        #expect(AddressPolicy.publicOnly.select(answers, forHost: "pool.example") == .refused(answers))
        // With public answers among them, only those are used.
        let mixed = answers + [Self.endpoint("192.0.2.7")]
        #expect(AddressPolicy.publicOnly.select(mixed, forHost: "pool.example") == .use([Self.endpoint("192.0.2.7")]))
    }

    @Test func localhostAndAnOptInMayBeLocal() {
        let loopback = [Self.endpoint("::1"), Self.endpoint("127.0.0.1")]
        #expect(AddressPolicy.publicOnly.select(loopback, forHost: "localhost") == .use(loopback))
        #expect(AddressPolicy.publicOnly.select(loopback, forHost: "ntp.localhost") == .use(loopback))
        let lan = [Self.endpoint("192.168.1.10")]
        #expect(AddressPolicy.allowingLocal.select(lan, forHost: "ntp.lan") == .use(lan))
        // Never an address that leads to no host, even when local ones are allowed.
        #expect(AddressPolicy.allowingLocal.select([Self.endpoint("0.0.0.0")], forHost: "x.example") == .refused([Self.endpoint("0.0.0.0")]))
    }

    @Test func nat64IsPublic() {
        let answers = [Self.endpoint("64:ff9b::c000:207")]  // 192.0.2.7 through NAT64
        #expect(AddressPolicy.publicOnly.select(answers, forHost: "pool.example") == .use(answers))
    }

    @Test func familiesAlternateFromTheResolversFirstAndDuplicatesGo() {
        let answers = ["2001:db8::1", "2001:db8::2", "2001:db8::3", "192.0.2.1", "192.0.2.2", "2001:db8::1"].map { Self.endpoint($0) }
        let selection = AddressPolicy.publicOnly.select(answers, forHost: "pool.example")
        #expect(selection == .use(["2001:db8::1", "192.0.2.1", "2001:db8::2", "192.0.2.2", "2001:db8::3"].map { Self.endpoint($0) }))
    }
}
