import TimeSync
import TimeSyncWire

@available(watchOS, unavailable)
extension DatagramMeasurement {
    /// Runs the measurement on the system's sockets and resolver: the package's one receive loop, for
    /// NTP, NTS and Roughtime alike. It only executes what the measurement asks: resolve the name,
    /// open a fresh socket on a random port connected to the address (so datagrams from elsewhere
    /// never arrive, and an ICMP port unreachable ends the exchange at once), send the request stamped
    /// as it leaves, hand over every datagram with the instant it was read, sleep when told.
    /// - Parameters:
    ///   - timeBase: The clocks: every deadline and sleep is on its monotonic clock, and so is each
    ///     stamp.
    ///   - addressPolicy: Which addresses the name may resolve to.
    /// - Returns: The first answering address's answers, oldest first; at least one.
    /// - Throws: The measurement's verdict: the protocol's refusal, its timeout error, the resolver's
    ///   `NTPClientError`, `NTPClientError.unreachable` when every address's port was closed;
    ///   `CancellationError`.
    package mutating func run(on timeBase: any TimeBase, addressPolicy: AddressPolicy) async throws -> [Answered] {
        while true {
            try Task.checkCancellation()
            switch next(at: timeBase.monotonicNow()) {
            case .done(let answers):
                return answers
            case .failed(let error):
                throw error
            case .wait(let until):
                try await timeBase.sleep(until: until)
            case .resolve(let host, let port, let deadline):
                do {
                    resolved(try await NTPResolver.resolve(host: host, port: port, policy: addressPolicy, deadline: deadline, timeBase: timeBase))
                } catch is CancellationError {
                    throw CancellationError()
                } catch {
                    resolutionFailed(error)
                }
            case .open(let address):
                try await exchange(with: address, on: timeBase)
            }
        }
    }

    /// One request to `address` and the datagrams that answer it, until the measurement says the
    /// exchange ended or its listening time passed.
    private mutating func exchange(with address: IPEndpoint, on timeBase: any TimeBase) async throws {
        do {
            let socket = try DatagramSocket(connectingTo: address, timeBase: timeBase)
            defer { socket.close() }
            let (datagram, listenUntil) = opened(at: timeBase.monotonicNow(), wallTime: timeBase.wallNow())
            socket.close(at: listenUntil)
            try socket.send(datagram)
            while let received = try await socket.next() {
                switch self.received(received.bytes, at: received.receivedAt) {
                case .ended: return
                case .listen(let until?): socket.close(at: until)
                case .listen(nil): continue
                }
            }
            try Task.checkCancellation()
            listenEnded(at: timeBase.monotonicNow(), unseen: socket.droppedUnseen)
        } catch is CancellationError {
            throw CancellationError()
        } catch let error as NTPClientError where error.code == .unreachable {
            unreachable(error, at: timeBase.monotonicNow())
        } catch {
            transportFailed(error, at: timeBase.monotonicNow())
        }
    }
}
