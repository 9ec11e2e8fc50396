#if NTPServer && os(Linux)
import CTimeSyncBatchIO
import Dispatch
import Foundation
import Glibc
import Logging
import NIOCore
import Synchronization
import TimeSync

/// The SNTP server's batched path on Linux: one thread per socket, each reading up to 64
/// datagrams per `recvmmsg`, answering them with `TimeSyncServerSupport`'s `NTPServerResponder` (through the
/// socket's ``NTPServerState``, rate limiter included) and sending the replies with one `sendmmsg`.
/// Buffers are allocated once per socket; nothing is allocated per datagram, NTS replies included.
///
/// With kernel timestamps on, each request's receive time is when the kernel queued it
/// (`SO_TIMESTAMPNS`), carried onto the server's time base: time spent in the socket's queue under
/// load does not count as network delay.
final class BatchedDatagramSockets: Sendable {
    /// The size of a datagram slot: larger than any request answered; a longer datagram arrives
    /// cut (`MSG_TRUNC`) and is dropped as oversize.
    static let slotSize: UInt32 = 4096

    private let workers: [Worker]
    private let wake: Int32
    /// Set by ``stop()``: a thread that never finds its queue empty checks it after each batch.
    private let stopping: StopFlag
    /// The bound address (the kernel's pick for port 0).
    let address: SocketAddress
    private let done = DispatchGroup()

    /// Binds `states.count` sockets to the configured address (sharing the port with `SO_REUSEPORT`
    /// when there are several, after checking that no other process holds it).
    /// - Throws: `IOError` with the bind's errno.
    init(
        configuration: NTPServerConfiguration, states: [Locked<NTPServerState>], timeBase: any TimeBase, logger: Logger
    ) throws {
        let resolved = try SocketAddress.makeAddressResolvingHost(configuration.host, port: configuration.port)
        var descriptors: [Int32] = []
        var bound = resolved
        var attempts = 0
        while true {
            attempts += 1
            do {
                if states.count > 1 { bound = try Self.probeExclusively(resolved) }
                for _ in states {
                    let fd = try Self.open(bound, reusePort: states.count > 1, kernelTimestamps: configuration.kernelTimestamps)
                    descriptors.append(fd)
                    bound = try Self.localAddress(of: fd)  // port 0: the rest join the one picked
                }
                break
            } catch let error as IOError where error.errnoCode == EADDRINUSE && configuration.port == 0 && states.count > 1 && attempts < 8 {
                // Another socket took the probed free port before the bind: probe again.
                for fd in descriptors { close(fd) }
                descriptors = []
                bound = resolved
            } catch {
                for fd in descriptors { close(fd) }
                throw error
            }
        }
        let wake = ts_wake_create()
        guard wake >= 0 else {
            let code = errno
            for fd in descriptors { close(fd) }
            throw IOError(errnoCode: code, reason: "eventfd")
        }
        let stopping = StopFlag()
        var workers: [Worker] = []
        for (fd, state) in zip(descriptors, states) {
            guard let batch = ts_batch_create(Self.slotSize) else {
                for worker in workers { worker.release() }
                for fd in descriptors { close(fd) }
                close(wake)
                throw IOError(errnoCode: ENOMEM, reason: "datagram buffers")
            }
            workers.append(
                Worker(
                    fd: fd, batch: batch, state: state, timeBase: timeBase, kernelTimestamps: configuration.kernelTimestamps,
                    coalescingInterval: configuration.coalescingInterval, stopping: stopping, logger: logger))
        }
        self.workers = workers
        self.wake = wake
        self.stopping = stopping
        self.address = bound
    }

    /// Starts a thread per socket.
    func start() {
        for (index, worker) in workers.enumerated() {
            done.enter()
            let thread = Thread { [done, wake] in
                worker.serve(wake: wake)
                done.leave()
            }
            thread.name = "timesync-ntp-\(index)"
            thread.start()
        }
    }

    /// Asks every thread to stop; they finish the batch in hand.
    func stop() {
        stopping.set()
        ts_wake_signal(wake)
    }

    /// Whether ``stop()`` was called.
    final class StopFlag: Sendable {
        private let flag = Atomic<Bool>(false)
        func set() { flag.store(true, ordering: .releasing) }
        var isSet: Bool { flag.load(ordering: .acquiring) }
    }

    /// Waits for every thread to stop, then closes the sockets.
    func finished() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            done.notify(queue: .global()) { continuation.resume() }
        }
        for worker in workers { worker.release() }
        close(wake)
    }

    private static func open(_ address: SocketAddress, reusePort: Bool, kernelTimestamps: Bool) throws -> Int32 {
        let fd = address.withSockAddr { pointer, length in
            ts_socket_open(pointer, socklen_t(length), reusePort ? 1 : 0, kernelTimestamps ? 1 : 0)
        }
        guard fd >= 0 else { throw IOError(errnoCode: errno, reason: "bind") }
        return fd
    }

    /// Binds `address` without `SO_REUSEPORT` and lets it go: fails with `EADDRINUSE` when any
    /// other socket, shared or not, holds the port (chronyd's would otherwise be joined silently).
    /// - Returns: The address with the port bound (the kernel's pick for 0).
    private static func probeExclusively(_ address: SocketAddress) throws -> SocketAddress {
        let fd = try open(address, reusePort: false, kernelTimestamps: false)
        defer { close(fd) }
        return try localAddress(of: fd)
    }

    private static func localAddress(of fd: Int32) throws -> SocketAddress {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard result == 0 else { throw IOError(errnoCode: errno, reason: "getsockname") }
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafeBytes(of: storage) { SocketAddress($0.loadUnaligned(as: sockaddr_in.self), host: "") }
        case AF_INET6:
            return withUnsafeBytes(of: storage) { SocketAddress($0.loadUnaligned(as: sockaddr_in6.self), host: "") }
        default:
            throw IOError(errnoCode: EAFNOSUPPORT, reason: "getsockname")
        }
    }
}
#endif
