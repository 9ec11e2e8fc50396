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
/// datagrams per `recvmmsg`, answering them with the core's `NTPServerResponder` (through the
/// socket's ``NTPServerState``, rate limiter included) and sending the replies with one `sendmmsg`.
/// Buffers are allocated once per socket; nothing is allocated per datagram but for NTS replies.
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

    /// One socket and its buffers, served by one thread.
    final class Worker: @unchecked Sendable {
        // Unchecked: `batch` and `fd` are used by the socket's one thread, then released after it
        // has stopped (`finished()` waits for it); `state` is behind its lock.
        private let fd: Int32
        private let batch: OpaquePointer
        private let state: Locked<NTPServerState>
        private let timeBase: any TimeBase
        private let kernelTimestamps: Bool
        private let coalescingInterval: Int64
        private let stopping: StopFlag
        private let logger: Logger
        /// Datagrams since the thread last slept that make it linger on an empty queue.
        static let coalescingThreshold = 4

        init(
            fd: Int32, batch: OpaquePointer, state: Locked<NTPServerState>, timeBase: any TimeBase, kernelTimestamps: Bool,
            coalescingInterval: Duration, stopping: StopFlag, logger: Logger
        ) {
            self.stopping = stopping
            self.fd = fd
            self.batch = batch
            self.state = state
            self.timeBase = timeBase
            self.kernelTimestamps = kernelTimestamps
            self.coalescingInterval = max(0, Int64(coalescingInterval.components.seconds) * 1_000_000_000 + coalescingInterval.components.attoseconds / 1_000_000_000)
            self.logger = logger
        }

        func release() {
            ts_batch_destroy(batch)
            close(fd)
        }

        /// Reads, answers and writes until `wake` is signalled.
        ///
        /// Under load (at least ``coalescingThreshold`` datagrams since the thread last slept) an
        /// empty queue is given ``coalescingInterval`` to fill before the thread waits on it, so
        /// reads come in larger batches and the costs of a read, a send and a wake-up are shared
        /// by more requests. With kernel timestamps this costs no accuracy: a request's wait is
        /// between its receive and transmit timestamps, which clients leave out of the delay.
        /// Without them it would count as network delay, so the thread never lingers.
        func serve(wake: Int32) {
            var sinceSleep = 0
            let lingers = kernelTimestamps && coalescingInterval > 0
            while !stopping.isSet {
                let count = ts_batch_receive(fd, batch)
                if count > 0 {
                    answer(count: Int(count))
                    sinceSleep += Int(count)
                } else if count == 0 {
                    if lingers && sinceSleep >= Self.coalescingThreshold {
                        sinceSleep = 0
                        ts_sleep_nanoseconds(coalescingInterval)
                        continue
                    }
                    sinceSleep = 0
                    // Nothing waiting: sleep until a datagram arrives or the server stops.
                    switch ts_wait(fd, wake) {
                    case 1: continue
                    case 0: return
                    default:
                        logger.error("NTP server socket wait failed; this socket stops serving", metadata: ["errno": .stringConvertible(errno)])
                        return
                    }
                } else {
                    let code = errno
                    if code == EBADF || code == ENOTSOCK || code == EINVAL {
                        logger.error("NTP server socket failed; this socket stops serving", metadata: ["errno": .stringConvertible(code)])
                        return
                    }
                    // EINTR, or an error from an earlier send reported on this socket: serve on.
                    logger.debug("NTP server socket error", metadata: ["errno": .stringConvertible(code)])
                }
            }
        }

        /// Answers the `count` datagrams of the last read and sends the replies together.
        private func answer(count: Int) {
            // The kernel's clock, as it stamped the datagrams: their age is measured on it.
            let kernelNow = kernelTimestamps ? ts_kernel_realtime() : -1
            let wall = timeBase.wallNow()
            let arrival = timeBase.monotonicNow()
            let timeBase = self.timeBase
            let batch = self.batch
            let kernelTimestamps = self.kernelTimestamps
            let replies = state.withLock { state -> UInt32 in
                var replies: UInt32 = 0
                for index in 0..<UInt32(count) {
                    var length: UInt32 = 0
                    var truncated: Int32 = 0
                    let bytes = ts_batch_datagram(batch, index, &length, &truncated)
                    if truncated != 0 {
                        state.countDrop(.oversize)
                        continue
                    }
                    var addressLength: socklen_t = 0
                    let client = NTPRateLimitKey(sockaddr: ts_batch_source(batch, index, &addressLength))
                    var receivedAt = wall
                    if kernelTimestamps {
                        let stamp = ts_batch_kernel_time(batch, index)
                        if stamp >= 0 && kernelNow >= 0 {
                            // How long ago the kernel queued it, on the kernel's clock, carried onto
                            // the time base's (the same clock for the system's time base). A stamp
                            // from the future or over a second old is a clock step: ignored.
                            let age = kernelNow &- stamp
                            if (0...1_000_000_000).contains(age) { receivedAt = UnixTime(nanoseconds: wall.nanoseconds.saturatingSubtract(age)) }
                        }
                    }
                    let action = state.respond(
                        to: UnsafeRawBufferPointer(start: bytes, count: Int(length)), from: client, receivedAt: receivedAt, arrival: arrival,
                        timeBase: timeBase)
                    let packet: NTPPacket
                    switch action {
                    case .reply(let reply), .authenticatedReply(let reply), .negativeAcknowledgment(let reply), .kiss(let reply): packet = reply
                    case .drop: continue
                    }
                    let out = UnsafeMutableRawBufferPointer(start: ts_batch_reply_buffer(batch, replies), count: Int(BatchedDatagramSockets.slotSize))
                    let size: Int
                    if packet.extensionFields.isEmpty && packet.messageAuthenticationCode == nil {
                        size = packet.writeHeader(to: out)
                    } else {
                        let encoded = packet.encoded()
                        // Never larger than the request, which fit in its slot: checked all the same.
                        guard encoded.count <= out.count else { continue }
                        out.copyBytes(from: encoded)
                        size = encoded.count
                    }
                    ts_batch_queue_reply(batch, replies, index, UInt32(size))
                    replies += 1
                }
                state.flushCounters()
                return replies
            }
            if replies > 0 { _ = ts_batch_send(fd, batch, replies) }
        }
    }
}

extension NTPRateLimitKey {
    /// A client's IP address from a socket address, without the port.
    init(sockaddr address: UnsafePointer<sockaddr>) {
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            let v4 = UnsafeRawPointer(address).loadUnaligned(as: sockaddr_in.self)
            self.init(ipv4: UInt32(bigEndian: v4.sin_addr.s_addr))
        case AF_INET6:
            self.init(in6: UnsafeRawPointer(address).loadUnaligned(as: sockaddr_in6.self).sin6_addr)
        default:
            self.init(high: .max, low: .max)
        }
    }
}
#endif
