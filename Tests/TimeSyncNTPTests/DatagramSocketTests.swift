#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
import TimeSync
import TimeSyncWire
import TimeSyncFixtures
import TimeSyncTesting
@testable import TimeSyncNTP
@testable import TimeSyncSockets

/// The NTP client's socket on the system's UDP sockets, against a plain POSIX socket on loopback:
/// stamping, cut datagrams, ICMP port unreachable, the deadline. Loopback delivers at once; nothing
/// sleeps.
@Suite struct DatagramSocketTests {
    @Test func stampsDatagramsAsTheyAreReadAndDropsCutOnes() async throws {
        let peer = try Peer()
        let timeBase = ManualTimeBase()
        timeBase.advance(by: .milliseconds(7))
        let socket = try DatagramSocket(connectingTo: try #require(IPEndpoint(host: "127.0.0.1", port: Int(peer.port))), timeBase: timeBase)
        try socket.send([1, 2, 3])
        let cut = [UInt8](repeating: 1, count: DatagramSocket.maximumDatagramSize + 1)
        let whole = [UInt8](repeating: 2, count: 48)
        peer.answer([cut, whole])
        let received = try #require(try await socket.next())
        #expect(received.bytes == whole, "the cut datagram is dropped, never parsed")
        #expect(received.receivedAt == timeBase.monotonicNow())
        socket.close()
        #expect(try await socket.next() == nil)
    }

    @Test func aClosedPortEndsTheExchangeAsUnreachable() async throws {
        let port = try Peer().port  // bound, then closed: nothing listens there now
        let socket = try DatagramSocket(connectingTo: try #require(IPEndpoint(host: "127.0.0.1", port: Int(port))), timeBase: ManualTimeBase())
        try socket.send([1, 2, 3])
        await expectThrows(NTPClientError.unreachable) {
            _ = try await socket.next()
        }
        socket.close()
    }

    @Test func theDeadlineEndsTheWaitWithNothing() async throws {
        let peer = try Peer()
        let base = ManualTimeBase()
        let socket = try DatagramSocket(connectingTo: try #require(IPEndpoint(host: "127.0.0.1", port: Int(peer.port))), timeBase: base)
        socket.close(at: base.monotonicNow())
        #expect(try await socket.next() == nil)
    }

    /// The deadline is on the time base's clock: a hand-moved clock moved past it closes the socket,
    /// an hour of it in no time.
    @Test func theDeadlineIsOnTheTimeBasesClock() async throws {
        let peer = try Peer()
        let base = ManualTimeBase()
        let socket = try DatagramSocket(connectingTo: try #require(IPEndpoint(host: "127.0.0.1", port: Int(peer.port))), timeBase: base)
        socket.close(at: base.monotonicNow().advanced(by: .seconds(3600)))
        base.advance(by: .seconds(3601))
        #expect(try await socket.next() == nil)
    }
}

/// A blocking UDP socket bound to 127.0.0.1 on a free port.
private final class Peer {
    let descriptor: Int32
    let port: UInt16

    init() throws {
        #if canImport(Darwin)
        let descriptor = socket(AF_INET, SOCK_DGRAM, 0)
        #else
        let descriptor = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        #endif
        self.descriptor = descriptor
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(bound == 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        port = UInt16(bigEndian: address.sin_port)
        _ = self.port
    }

    deinit { close(descriptor) }

    /// Receives one datagram and answers each of `replies` to its sender.
    func answer(_ replies: [[UInt8]]) {
        var buffer = [UInt8](repeating: 0, count: 4096)
        var sender = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &sender) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { recvfrom(descriptor, &buffer, buffer.count, 0, $0, &length) }
        }
        for reply in replies {
            _ = withUnsafePointer(to: &sender) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(descriptor, reply, reply.count, 0, $0, length) }
            }
        }
    }
}
