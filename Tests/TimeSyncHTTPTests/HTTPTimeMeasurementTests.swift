import Testing
import TimeSync
import TimeSyncWire
import TimeSyncHTTP
import TimeSyncSimulation
import TimeSyncTesting

/// One estimation path: a measurement reaches a clock as its one refined sample, whatever the clock's
/// strategy.
@Suite struct HTTPTimeMeasurementTests {
    /// A `Date` measurement refined by the plan against a server `theta` ahead of the monotonic clock
    /// with 1 ms each way.
    static func refinedDateMeasurement(theta: Int64) throws -> HTTPTimeMeasurement {
        var plan = try DateRefinementPlan(sourceCount: 1, maxRequests: 12)
        var now: Int64 = 2_000_000_000_000
        while case .send(let source, let instant) = plan.nextAction(at: MonotonicInstant(nanoseconds: now)) {
            let stamp = instant.nanoseconds + 1_000_000
            let second = (stamp + theta) / 1_000_000_000 * 1_000_000_000
            let sample = try OffsetSample.timestamp(
                source: "api.example.com", serverTime: UnixTime(nanoseconds: second), resolution: HTTPDate.resolution,
                requestSent: instant, responseReceived: MonotonicInstant(nanoseconds: stamp + 1_000_000))
            try plan.handle(sample, from: source)
            now = stamp + 1_100_000
        }
        return try HTTPTimeMeasurement(
            source: "api.example.com", scheme: .date, samples: plan.samples, requests: plan.requests, rejected: plan.rejected)
    }

    @Test(arguments: [Strategy.intersection, .latest, .lowestDelay, .ema(alpha: 0.25)])
    func everyStrategySeesTheRefinedInterval(strategy: Strategy) throws {
        let theta: Int64 = 37_123_456_789
        let measurement = try Self.refinedDateMeasurement(theta: theta)
        let refined = measurement.refinedSample
        #expect(refined.offset.contains(theta))
        #expect(refined.offset.width < 20_000_000, "the refinement is far below a second: \(refined.offset.width) ns")
        #expect(measurement.samples.allSatisfy { $0.offset.width >= 900_000_000 }, "each raw sample spans about a second")

        let base = ManualTimeBase(monotonic: refined.time)
        let clock = ServerClock(timeBase: base, strategy: strategy)
        clock.calibrate(with: measurement)
        let reading = clock.reading()
        let truth = UnixTime(nanoseconds: refined.time.nanoseconds + theta)
        #expect(reading.earliest <= truth && truth <= reading.latest)
        #expect(reading.earliest.duration(to: reading.latest) < .milliseconds(20), "\(strategy): \(reading)")
    }
}
