import TimeSync
import TimeSyncWire

/// Runs a ``DatagramExchange`` on a socket of the system's: the package's one receive loop, for NTP,
/// NTS and Roughtime alike.
@available(watchOS, unavailable)
package enum DatagramExchangeDriver {
    /// Opens a socket connected to `address`, sends the exchange's datagram and hands it every
    /// datagram that arrives, until the exchange ends, its own deadline or `deadline` passes.
    /// - Parameters:
    ///   - exchange: The exchange, not yet started; afterwards it holds what it saw.
    ///   - address: The server's address.
    ///   - deadline: The latest instant to listen to (the measurement's), on `timeBase`'s monotonic
    ///     clock; the exchange's own deadline counts too.
    ///   - timeBase: The clocks: the request is stamped on them, and so is each datagram read.
    ///   - timedOut: The error for an exchange that got nothing usable, given what happened in words.
    /// - Returns: The exchange's answer.
    /// - Throws: What the exchange fails with, `timedOut`'s error, `NTPClientError` (`.unreachable`,
    ///   `.network`) from the socket, `CancellationError`.
    package static func run<Exchange: DatagramExchange>(
        _ exchange: inout Exchange, with address: IPEndpoint, deadline: MonotonicInstant, timeBase: any TimeBase,
        timedOut: (String) -> any Error = { NTPClientError(.timeout, $0) }
    ) async throws -> Exchange.Answer {
        let started = timeBase.monotonicNow()
        let socket = try DatagramSocket(connectingTo: address, timeBase: timeBase)
        defer { socket.close() }
        let now = timeBase.monotonicNow()
        let (datagram, ownDeadline) = exchange.start(at: now, wallTime: timeBase.wallNow())
        socket.close(at: min(deadline, ownDeadline))
        try socket.send(datagram)
        var step = ExchangeStep<Exchange.Answer>.listen(until: nil)
        while case .listen = step, let received = try await socket.next() {
            step = exchange.receive(received.bytes, at: received.receivedAt)
            if case .listen(let until?) = step { socket.close(at: until) }
        }
        try Task.checkCancellation()
        if case .listen = step { step = exchange.finish(at: timeBase.monotonicNow()) }
        switch step {
        case .done(let answer):
            return answer
        case .failed(let error):
            throw error
        case .silent(let lastDropped):
            let waited = started.duration(to: timeBase.monotonicNow())
            let reasons = [lastDropped.map { "last datagram refused: \($0)" }, socket.droppedUnseen].compactMap { $0 }
            throw timedOut("from \(address) within \(waited.readable)" + reasons.map { "; \($0)" }.joined())
        case .listen:
            throw timedOut("from \(address) within \(started.duration(to: timeBase.monotonicNow()).readable)")
        }
    }
}
