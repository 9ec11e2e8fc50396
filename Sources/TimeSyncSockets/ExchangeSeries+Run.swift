import TimeSync
import TimeSyncWire

extension ExchangeSeries {
    /// Runs the series on `timeBase`: sleeps while it says wait, runs `exchange` with the time each
    /// exchange may take while it says send, and reports each exchange's end to it.
    ///
    /// `exchange` returns when it brought a usable reply and throws otherwise. A closed port
    /// (`NTPClientError.unreachable`), a failed NTS key exchange and cancellation end the series at
    /// once, as does any refusal the series itself says ends it.
    /// - Throws: The error that ended the series; nothing when it ran its course (the caller looks at
    ///   ``answered``, ``timedOut`` and ``lastError``).
    package mutating func run(on timeBase: any TimeBase, exchange: (Duration) async throws -> Void) async throws {
        while true {
            switch next(at: timeBase.monotonicNow()) {
            case .finished:
                return
            case .wait(let until):
                try await timeBase.sleep(until: until)
            case .send(let allowed):
                do {
                    try await exchange(allowed)
                    answer()
                } catch let error as NTPClientError where error.code == .unreachable {
                    throw error
                } catch let error as NTSKEError {
                    throw error  // no keys: nothing more to try
                } catch is CancellationError {
                    throw CancellationError()
                } catch {
                    let timedOut = (error as? NTPClientError)?.code == .timeout
                    guard fail(error, timedOut: timedOut, at: timeBase.monotonicNow()) else { throw error }
                }
            }
        }
    }
}
