#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import TimeSync
import TimeSyncWire

/// A datagram as it came off the socket, stamped with the monotonic clock as it was read.
package struct ReceivedDatagram: Sendable {
    package var bytes: [UInt8]
    package var receivedAt: MonotonicInstant
}

/// A non-blocking UDP socket of the system's (POSIX), on an ephemeral port, connected to one server:
/// the kernel drops datagrams from anyone else and reports the server host's ICMP errors (port
/// unreachable arrives as `ECONNREFUSED` on the next read).
///
/// A reader thread waits in `poll(2)` and drains the socket as datagrams arrive, stamping each one on
/// the monotonic clock as it is read; ``next()`` hands them out in order. ``close(at:)`` sets a
/// deadline on the time base's monotonic clock (the one the exchange's deadline is on, whatever the
/// time base: a test's hand-moved clock closes the socket when it is moved past it), after which
/// ``next()`` returns `nil`; the reader closes the descriptor.
@available(watchOS, unavailable)
package final class DatagramSocket: Sendable {
    /// The largest datagram accepted whole; the socket reads one byte more, so a longer one is seen
    /// to be cut and dropped.
    static let maximumDatagramSize = 2048
    /// The longest the reader waits in `poll(2)` before it looks at the deadline and at `close()`.
    private static let pollSlice: Int64 = 50_000_000

    private struct State: Sendable {
        var datagrams: [ReceivedDatagram] = []
        var error: NTPClientError?
        var closed = false
        /// Datagrams dropped for being larger than ``maximumDatagramSize``.
        var oversize = 0
        /// When the socket closes by itself, on the time base's monotonic clock; `nil`: not by itself.
        var deadline: MonotonicInstant?
    }

    let remote: IPEndpoint
    private let descriptor: Int32
    private let timeBase: any TimeBase
    private let state = Locked(State())
    private let waiters = Waiters()

    /// Opens a socket of the address family of `remote`, connected to it, and starts its reader.
    /// - Throws: `NTPClientError.network` when the system refuses (no route, no IPv6, …).
    package init(connectingTo remote: IPEndpoint, timeBase: any TimeBase) throws(NTPClientError) {
        self.remote = remote
        self.timeBase = timeBase
        let family = remote.address.family == .v4 ? AF_INET : AF_INET6
        #if canImport(Darwin)
        let descriptor = socket(family, SOCK_DGRAM, 0)
        #else
        let descriptor = socket(family, Int32(SOCK_DGRAM.rawValue), 0)
        #endif
        guard descriptor >= 0 else { throw NTPClientError(.network, "\(remote): cannot open a UDP socket: \(Self.errorText(errno))") }
        let flags = fcntl(descriptor, F_GETFL, 0)
        let connected = SocketAddressStorage(remote).withSockaddr { address, length in
            connect(descriptor, address, length)
        }
        guard flags >= 0, fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) == 0, fcntl(descriptor, F_SETFD, FD_CLOEXEC) == 0, connected == 0 else {
            let code = errno
            systemClose(descriptor)
            throw NTPClientError(.network, "\(remote): \(Self.errorText(code))")
        }
        self.descriptor = descriptor
        // A queue of its own: the reader blocks in poll(2), never a thread of the cooperative pool.
        DispatchQueue(label: "timesync.ntp.socket").async { [state, waiters, timeBase] in
            Self.read(descriptor, remote: remote, timeBase: timeBase, state: state, waiters: waiters)
        }
    }

    deinit {
        close()
    }

    /// Sends one datagram.
    /// - Throws: `NTPClientError.unreachable` when an earlier ICMP error is pending,
    ///   `NTPClientError.network` for any other refusal.
    package func send(_ bytes: [UInt8]) throws(NTPClientError) {
        let sent = bytes.withUnsafeBytes { systemSend(descriptor, $0.baseAddress, $0.count) }
        guard sent == bytes.count else {
            let code = errno
            if code == ECONNREFUSED { throw NTPClientError(.unreachable, "\(remote): port unreachable") }
            throw NTPClientError(.network, "\(remote): cannot send: \(Self.errorText(code))")
        }
    }

    /// The next datagram, in arrival order.
    /// - Returns: `nil` once the socket is closed (its deadline passed) with nothing left to read.
    /// - Throws: `NTPClientError.unreachable` when the server's host answered with ICMP port
    ///   unreachable, `NTPClientError.network` for other socket errors, `CancellationError`.
    package func next() async throws -> ReceivedDatagram? {
        let state = self.state
        let outcome = try await waiters.wait { () -> Result<ReceivedDatagram?, NTPClientError>? in
            state.withLock { state in
                if !state.datagrams.isEmpty { return .success(state.datagrams.removeFirst()) }
                if let error = state.error { return .failure(error) }
                return state.closed ? .success(nil) : nil
            }
        }
        return try outcome.get()
    }

    /// Why datagrams were dropped before anyone saw them (for a timeout's message): `nil` when none
    /// were, else how many exceeded ``maximumDatagramSize``, in words.
    package var droppedUnseen: String? {
        let oversize = state.withLock { $0.oversize }
        guard oversize > 0 else { return nil }
        return "\(oversize) datagram\(oversize == 1 ? "" : "s") larger than \(Self.maximumDatagramSize) bytes dropped unread (no reply is that large)"
    }

    /// Closes the socket at `deadline` (on the time base's monotonic clock), unless it closes sooner:
    /// ``next()`` then returns `nil`. An earlier deadline set before stands.
    package func close(at deadline: MonotonicInstant) {
        state.withLock { $0.deadline = min($0.deadline ?? deadline, deadline) }
    }

    /// Closes the socket now: ``next()`` returns what was read, then `nil`.
    package func close() {
        state.withLock { $0.closed = true }
        waiters.wakeAll()
    }

    /// The reader: waits for datagrams until the socket is closed or its deadline passes, then
    /// closes the descriptor.
    private static func read(_ descriptor: Int32, remote: IPEndpoint, timeBase: any TimeBase, state: Locked<State>, waiters: Waiters) {
        defer { systemClose(descriptor) }
        var buffer = [UInt8](repeating: 0, count: maximumDatagramSize + 1)
        while true {
            let (closed, deadline) = state.withLock { ($0.closed || $0.error != nil, $0.deadline) }
            if closed { return }
            // Read on the time base at each slice: a hand-moved clock closes the socket as soon as it
            // is moved past the deadline, the system's when the deadline comes.
            let remaining = deadline.map { timeBase.monotonicNow().duration(to: $0).nanosecondsClamped } ?? .max
            if remaining <= 0 {
                state.withLock { $0.closed = true }
                waiters.wakeAll()
                return
            }
            var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32((min(remaining, pollSlice) + 999_999) / 1_000_000)
            guard poll(&request, 1, milliseconds) > 0 else { continue }
            // Readable, or an error is pending (POLLERR): recv says which.
            drain(descriptor, into: &buffer, remote: remote, timeBase: timeBase, state: state)
            waiters.wakeAll()
        }
    }

    /// Reads every datagram waiting, stamping each as it is read.
    private static func drain(_ descriptor: Int32, into buffer: inout [UInt8], remote: IPEndpoint, timeBase: any TimeBase, state: Locked<State>) {
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            let receivedAt = timeBase.monotonicNow()
            if count < 0 {
                let code = errno
                if code == EINTR { continue }
                if code == EAGAIN || code == EWOULDBLOCK { return }
                let error =
                    code == ECONNREFUSED
                    ? NTPClientError(.unreachable, "\(remote): port unreachable")
                    : NTPClientError(.network, "\(remote): \(errorText(code))")
                state.withLock { $0.error = $0.error ?? error }
                return
            }
            // A datagram that filled the buffer was cut by the kernel: never parse part of one.
            guard count <= maximumDatagramSize else {
                state.withLock { $0.oversize += 1 }
                continue
            }
            let datagram = ReceivedDatagram(bytes: Array(buffer[0..<count]), receivedAt: receivedAt)
            state.withLock { state in
                // Bounded like the replies to one request can be: a flood never grows memory.
                if state.datagrams.count < 64 { state.datagrams.append(datagram) }
            }
        }
    }

    private static func errorText(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}

/// `close(2)`, named apart from ``DatagramSocket/close()``.
private func systemClose(_ descriptor: Int32) {
    _ = close(descriptor)
}

/// `send(2)`, named apart from ``DatagramSocket/send(_:)``.
private func systemSend(_ descriptor: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
    send(descriptor, buffer, count, 0)
}
