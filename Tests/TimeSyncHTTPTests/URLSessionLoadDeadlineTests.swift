#if canImport(FoundationNetworking) || canImport(Darwin)
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif
import Testing
import TimeSync
import TimeSyncHTTP
import TimeSyncTesting

/// A URLSession load's deadline runs on the time base's monotonic clock (on a device, one that counts
/// time asleep): against a server that accepts and never answers, the load times out exactly when
/// that clock passes the deadline, not before.
@Suite struct URLSessionLoadDeadlineTests {
    /// A loopback TCP socket that listens and never answers (connections wait in its backlog).
    final class SilentListener {
        let descriptor: Int32
        let port: UInt16

        init() throws {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
            guard fd >= 0, bound == 0, listen(fd, 8) == 0 else {
                close(fd)
                throw POSIXError(.EADDRNOTAVAIL)
            }
            _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
            descriptor = fd
            port = UInt16(bigEndian: address.sin_port)
        }

        deinit { close(descriptor) }
    }

    @Test func theLoadTimesOutWhenTheMonotonicClockPassesTheDeadline() async throws {
        let listener = try SilentListener()
        let base = ManualTimeBase()
        let request = URLRequest(url: URL(string: "http://127.0.0.1:\(listener.port)/time")!)
        let load = Task { try await URLSessionLoad.data(for: request, session: .shared, deadline: .after(.seconds(600), on: base), timeBase: base) }
        #expect(await base.waitForSleepers(1))
        base.advance(by: .seconds(599))
        #expect(await base.waitForSleepers(1), "no answer and 599 s: still waiting")
        base.suspend(for: .seconds(2))  // the device sleeps past the deadline
        do {
            _ = try await load.value
            Issue.record("a server that never answered gave a response")
        } catch let error as HTTPTimeError {
            #expect(error.code == .timeout)
            #expect(error.description.contains("127.0.0.1:\(listener.port): no complete response within 601"), "\(error)")
        }
    }
}
#endif
