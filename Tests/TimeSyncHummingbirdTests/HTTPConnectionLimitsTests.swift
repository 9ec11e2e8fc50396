#if Hummingbird
import NIOCore
import Testing
import TimeSyncHummingbird

/// The connection timeouts and caps as state machines, driven by hand: no sockets, no sleeps.
@Suite("HTTP connection limits")
struct HTTPConnectionLimitsTests {
    static let limits = HTTPConnectionLimits(
        headerTimeout: .seconds(10), idleTimeout: .seconds(60), maximumConnections: 3, maximumConnectionsPerAddress: 2)

    static func at(_ seconds: Int64) -> NIODeadline { .uptimeNanoseconds(UInt64(1_000 + seconds) * 1_000_000_000) }

    @Test("a new connection's head is due within the header timeout, however its bytes trickle")
    func headerTimeoutFromOpening() {
        var timer = HTTPConnectionTimer(openedAt: Self.at(0), limits: Self.limits)
        #expect(timer.phase == .awaitingHead && timer.deadline == Self.at(10))
        for second in 1...9 { timer.bytesRead(at: Self.at(Int64(second))) }
        #expect(timer.deadline == Self.at(10), "bytes of a head do not extend its deadline")
        #expect(!timer.hasExpired(at: Self.at(9)))
        #expect(timer.hasExpired(at: Self.at(10)))
    }

    @Test("answering runs no timer; after the response the idle timeout runs, then the next head's")
    func idleThenNextHead() {
        var timer = HTTPConnectionTimer(openedAt: Self.at(0), limits: Self.limits)
        timer.bytesRead(at: Self.at(1))
        timer.headRead()
        timer.endRead()
        #expect(timer.phase == .answering && timer.deadline == nil && !timer.hasExpired(at: Self.at(1_000)))
        timer.responseFinished(at: Self.at(2))
        #expect(timer.phase == .idle && timer.deadline == Self.at(62))
        timer.bytesRead(at: Self.at(50))
        #expect(timer.phase == .awaitingHead && timer.deadline == Self.at(60), "the next head is due 10 s after its first byte")
        timer.headRead()
        timer.endRead()
        timer.responseFinished(at: Self.at(51))
        #expect(timer.deadline == Self.at(111))
    }

    @Test("a body still arriving after its response does not restart the head timer; pipelined requests keep it answering")
    func bodyAfterResponseAndPipelining() {
        var timer = HTTPConnectionTimer(openedAt: Self.at(0), limits: Self.limits)
        timer.headRead()
        timer.responseFinished(at: Self.at(1))
        timer.bytesRead(at: Self.at(30))
        #expect(timer.phase == .idle && timer.deadline == Self.at(61), "the rest of the body is not a new request")
        timer.endRead()
        timer.bytesRead(at: Self.at(40))
        #expect(timer.phase == .awaitingHead && timer.deadline == Self.at(50))

        var pipelined = HTTPConnectionTimer(openedAt: Self.at(0), limits: Self.limits)
        pipelined.headRead()
        pipelined.endRead()
        pipelined.headRead()
        pipelined.endRead()
        pipelined.responseFinished(at: Self.at(1))
        #expect(pipelined.phase == .answering && pipelined.deadline == nil)
        pipelined.responseFinished(at: Self.at(2))
        #expect(pipelined.phase == .idle && pipelined.deadline == Self.at(62))
    }

    @Test("one address gets its cap; a full server closes the connection waiting longest; busy ones are never closed")
    func caps() {
        var table = HTTPConnectionTable<String>(limits: Self.limits)
        let a = HTTPClientAddress.v4(1)
        let b = HTTPClientAddress.v4(2)
        guard case .admitted(let a1) = table.admit("a1", from: a), case .admitted(let a2) = table.admit("a2", from: a) else {
            Issue.record("the first two from one address were refused")
            return
        }
        #expect({ if case .overAddressLimit = table.admit("a3", from: a) { true } else { false } }())
        #expect(table.count(from: a) == 2 && table.count == 2)
        // a1 answers a request; a2 waits. The third connection fills the server.
        table.setClosable(a1, false)
        guard case .admitted(let b1) = table.admit("b1", from: b) else {
            Issue.record("b1 was refused")
            return
        }
        // Full: the oldest waiting connection (a2) makes room; a1, busy, is kept.
        guard case .admittedClosing(let b2, let closed) = table.admit("b2", from: b) else {
            Issue.record("a full server did not make room")
            return
        }
        #expect(closed == "a2")
        #expect(table.count == 3 && table.count(from: a) == 1 && table.count(from: b) == 2)
        table.remove(a2)  // its close arrives later: ignored
        #expect(table.count == 3)
        // Everyone busy: refused.
        for id in [b1, b2] { table.setClosable(id, false) }
        #expect({ if case .full = table.admit("c1", from: .v4(3)) { true } else { false } }())
        // A closed connection frees its slot and its address's.
        table.remove(a1)
        #expect(table.count == 2 && table.count(from: a) == 0)
        #expect({ if case .admitted = table.admit("a4", from: a) { true } else { false } }())
    }

    @Test("the waiting queue stays as long as the connections, over a million requests")
    func queueStaysBounded() {
        var table = HTTPConnectionTable<Int>(limits: HTTPConnectionLimits(maximumConnections: 10, maximumConnectionsPerAddress: 10))
        var ids: [HTTPConnectionTable<Int>.ID] = []
        for index in 0..<10 {
            guard case .admitted(let id) = table.admit(index, from: nil) else { return }
            ids.append(id)
        }
        for round in 0..<100_000 {
            let id = ids[round % ids.count]
            table.setClosable(id, false)
            table.setClosable(id, true)
        }
        // Full and all waiting: the oldest waiting is the one whose request ended longest ago.
        guard case .admittedClosing(_, let closed) = table.admit(99, from: nil) else {
            Issue.record("no room made")
            return
        }
        #expect(closed == 0)
        #expect(table.count == 10)
    }

    @Test("defaults: 10 s, 60 s, 256 per address, the descriptor limit less 128 up to 10,000; values clamped")
    func defaults() {
        let limits = HTTPConnectionLimits()
        #expect(limits.headerTimeout == .seconds(10) && limits.idleTimeout == .seconds(60))
        #expect(limits.maximumConnectionsPerAddress == 256)
        #expect(HTTPConnectionLimits.defaultMaximumConnections(fileDescriptorLimit: 1_024) == 896)
        #expect(HTTPConnectionLimits.defaultMaximumConnections(fileDescriptorLimit: 20_000) == 10_000)
        #expect(HTTPConnectionLimits.defaultMaximumConnections(fileDescriptorLimit: 100) == 1)
        #expect(HTTPConnectionLimits.defaultMaximumConnections(fileDescriptorLimit: nil) == 10_000)
        #expect((1...10_000).contains(limits.maximumConnections))
        let odd = HTTPConnectionLimits(
            headerTimeout: .seconds(-5), idleTimeout: .seconds(10_000_000), maximumConnections: 0, maximumConnectionsPerAddress: -3)
        #expect(odd.headerTimeout == HTTPConnectionLimits.shortestTimeout && odd.idleTimeout == HTTPConnectionLimits.longestTimeout)
        #expect(odd.maximumConnections == 1 && odd.maximumConnectionsPerAddress == 1)
    }

    @Test("client addresses: IPv4 as is, IPv6 by /64, IPv4-mapped IPv6 as IPv4, Unix sockets uncounted")
    func clientAddresses() throws {
        let v4 = HTTPClientAddress(try SocketAddress(ipAddress: "192.0.2.7", port: 1))
        #expect(v4 == HTTPClientAddress(try SocketAddress(ipAddress: "192.0.2.7", port: 2)))
        #expect(v4 != HTTPClientAddress(try SocketAddress(ipAddress: "192.0.2.8", port: 1)))
        #expect(HTTPClientAddress(try SocketAddress(ipAddress: "::ffff:192.0.2.7", port: 3)) == v4)
        let host = HTTPClientAddress(try SocketAddress(ipAddress: "2001:db8:1:2::1", port: 1))
        #expect(host == HTTPClientAddress(try SocketAddress(ipAddress: "2001:db8:1:2:ffff::9", port: 1)))
        #expect(host != HTTPClientAddress(try SocketAddress(ipAddress: "2001:db8:1:3::1", port: 1)))
        #expect(HTTPClientAddress(try SocketAddress(unixDomainSocketPath: "/tmp/x")) == nil)
    }
}
#endif
