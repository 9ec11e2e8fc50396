import TimeSync
import TimeSyncWire

/// What a query of one Roughtime server found: its verified replies, their signed intervals combined,
/// and the offset of the device's wall clock they prove.
///
/// Every reply is signed under the same key, so the truth lies in all of their intervals or the server
/// lied: each interval (MIDP ± RADI, widened by its round trip) is carried to the newest reply's
/// instant, widened by the local clock's largest drift and the server's slew allowance for the time
/// between, and the carried intervals are intersected. Nothing is voted away: an empty intersection is
/// `RoughtimeError.contradictorySignatures`.
///
/// ``wallClockOffset`` is server time − the device's wall clock (positive when the server is ahead),
/// with hard bounds.
@available(watchOS, unavailable, message: "watchOS apps cannot use BSD sockets (Apple TN3135): use TimeSynchronizer.https() or TimeSource.https(_:)")
package struct RoughtimeQueryResult: Sendable {
    /// The verified exchanges, oldest first; at least one.
    package var exchanges: [RoughtimeClient.Exchange]
    /// The requests sent, those whose reply never came included.
    package var attempts: Int
    /// The samples (θ = server time − monotonic time) of ``exchanges``, in the same order.
    package var samples: [OffsetSample]
    /// The intersection of the carried intervals, anchored at the newest sample's instant; its bounds
    /// widen from there with the local clock's largest drift and the server's slew allowance.
    package var calibration: Calibration
    /// Server time − the device's wall clock, from ``calibration`` and a reading of the clocks taken
    /// when the result was made.
    package var wallClockOffset: WallClockOffset
    /// The shortest round trip of the exchanges.
    package var delay: Duration

    /// The requests whose verified reply never came.
    package var lost: Int { attempts - exchanges.count }

    /// Combines verified exchanges with one server.
    /// - Parameters:
    ///   - exchanges: The exchanges, in any order; at least one.
    ///   - attempts: The requests sent (default: one for each exchange, none lost).
    ///   - source: The source name the samples carry (`roughtime://HOST:PORT`).
    ///   - timeBase: The clocks the exchanges were timed with; read once for the wall-clock offset.
    ///   - configuration: The local clock's largest drift and the server's slew allowance the intervals
    ///     are carried with (default: the estimators' defaults, 100 ppm and 500 ppm up to 128 ms).
    /// - Throws: `RoughtimeError.contradictorySignatures` listing each reply's midpoint ± radius when
    ///   the carried intervals share no time, `RoughtimeError.timeout` without exchanges, `SampleError`
    ///   for a reply that cannot be a sample.
    package init(
        exchanges: [RoughtimeClient.Exchange], attempts: Int? = nil, source: String, timeBase: any TimeBase,
        configuration: EstimatorConfiguration = .init()
    ) throws {
        let ordered = exchanges.sorted { $0.responseReceived < $1.responseReceived }
        guard !ordered.isEmpty else { throw RoughtimeError(.timeout, "no verified reply to combine") }
        let samples = try ordered.map { try $0.sample(source: source) }
        self.exchanges = ordered
        self.attempts = max(attempts ?? ordered.count, ordered.count)
        self.samples = samples
        calibration = try Self.intersection(
            of: samples, signed: ordered.map { "\($0.response.midpoint) ± \($0.response.radius.readable)" }, source: source,
            configuration: configuration)
        wallClockOffset = WallClockOffset(calibration, pair: timeBase.wallClockPair())
        delay = .nanoseconds(ordered.map { $0.responseReceived.nanoseconds.saturatingSubtract($0.requestSent.nanoseconds) }.min() ?? 0)
    }

    /// Intersects samples of one signing server carried to the newest one's instant.
    /// - Parameters:
    ///   - samples: The samples, oldest first; not empty.
    ///   - signed: What each sample's reply signed (`midpoint ± radius`), for the error.
    ///   - source: The source name the calibration carries.
    ///   - configuration: The drift bound and the slew allowance the samples are carried with.
    /// - Returns: The intersection at the newest sample's instant, its midpoint the estimate, the drift
    ///   bound its rate.
    /// - Throws: `RoughtimeError.contradictorySignatures` when the intersection is empty.
    package static func intersection(
        of samples: [OffsetSample], signed: [String], source: String, configuration: EstimatorConfiguration
    ) throws(RoughtimeError) -> Calibration {
        let newest = samples[samples.count - 1].time
        let rate = configuration.ratePrior
        let slew = configuration.slewAllowance
        let (bounds, oldest) = CarriedIntersection.newestAgreeing(samples, at: newest, rate: rate, slew: slew)
        guard oldest == 0 else { throw RoughtimeError(.contradictorySignatures, signed.joined(separator: ", ")) }
        return Calibration(time: newest, offset: bounds, estimate: bounds.midpoint, rate: rate, sources: [source], slew: slew)
    }
}
