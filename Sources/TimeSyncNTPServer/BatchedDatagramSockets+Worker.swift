#if NTPServer && os(Linux)
import CTimeSyncBatchIO
import Dispatch
import Foundation
import Glibc
import Logging
import NIOCore
import Synchronization
import TimeSync
import TimeSyncServerSupport

extension BatchedDatagramSockets {
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
        /// Two reads with datagrams closer together than this: the thread is under load, and
        /// lingers before it reads again.
        static let loadWindow: Duration = .milliseconds(1)

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
        /// A read that brings fewer datagrams than a batch holds has emptied the queue, so the thread
        /// does not read it again at once. Idle, it waits on the socket: a wake-up then costs a wait,
        /// a read and a send, as in a select loop. Under load (this read came within ``loadWindow`` of
        /// the last one that brought datagrams) it lingers ``coalescingInterval`` instead, and reads
        /// again: reads come in larger batches, and the costs of a read, a send and a wake-up are
        /// shared by more requests. With kernel timestamps this costs no accuracy: a request's wait is
        /// between its receive and transmit timestamps, which clients leave out of the delay. Without
        /// them it would count as network delay, so the thread never lingers.
        func serve(wake: Int32) {
            let lingers = kernelTimestamps && coalescingInterval > 0
            var lastBatch: MonotonicInstant?
            while !stopping.isSet {
                let count = ts_batch_receive(fd, batch)
                if count >= 0 {
                    if count > 0 {
                        let arrival = answer(count: Int(count))
                        let loaded = lastBatch.map { $0.duration(to: arrival) < Self.loadWindow } ?? false
                        lastBatch = arrival
                        // A full batch: more may be waiting.
                        if Int(count) == Int(ts_batch_capacity) { continue }
                        if lingers && loaded {
                            ts_sleep_nanoseconds(coalescingInterval)
                            continue
                        }
                    }
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
        /// - Returns: When they were read, on the time base's monotonic clock.
        private func answer(count: Int) -> MonotonicInstant {
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
                    // The answer goes straight into the reply's slot, which is as large as the request's.
                    let out = UnsafeMutableRawBufferPointer(start: ts_batch_reply_buffer(batch, replies), count: Int(BatchedDatagramSockets.slotSize))
                    let action = state.respond(
                        to: UnsafeRawBufferPointer(start: bytes, count: Int(length)), into: out, from: client, receivedAt: receivedAt,
                        arrival: arrival, timeBase: timeBase)
                    let size = action.length
                    guard size > 0 else { continue }
                    ts_batch_queue_reply(batch, replies, index, UInt32(size))
                    replies += 1
                }
                state.flushCounters()
                return replies
            }
            if replies > 0 { _ = ts_batch_send(fd, batch, replies) }
            return arrival
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
