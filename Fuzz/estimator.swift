#if canImport(Glibc)
import Glibc
#endif
import TimeSync
import TimeSyncSimulation
import TimeSyncTesting

/// The estimators fed arbitrary sample sequences, through the public constructors.
///
/// Input: one byte choosing the ``ServerClock``'s strategy, then operations of one byte each (the low
/// four bits the operation, the high four the source) followed by their operands. Times are mostly near the manual clock's present (a realistic
/// exchange), sometimes at the edges of `Int64` or raw (``FuzzInput/nanoseconds(near:)``): those are
/// the inputs that must not trap. Each sample goes to an ``IntersectionEstimator`` held here and to
/// the clock; rejected samples (a thrown ``SampleError``) change nothing.
/// - Calibrations have rate bounds inside the drift prior and bounds around their estimate.
/// - The clock's readings keep their bounds around the estimate, and `now` agrees with `reading()`.
///
/// `FUZZ_TRACE=1 .build-fuzz/bin/estimator INPUT` prints the operations an input decodes to: what a
/// regression test replays.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEstimator(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let strategies: [Strategy] = [.intersection, .latest, .lowestDelay, .ema(alpha: 0.25), .kronos, .timesyncJS]
    let configuration = EstimatorConfiguration()
    let timeBase = ManualTimeBase()
    let strategy = input.pick(strategies)
    let clock = ServerClock(timeBase: timeBase, strategy: strategy)
    trace("ServerClock(timeBase: ManualTimeBase(), strategy: .\(strategy))")
    var estimator = IntersectionEstimator(configuration)
    let sources = ["a.example", "b.example", "c.example", "d.example", "e.example"]
    var operations = 0

    while !input.isAtEnd, operations < 256 {
        operations += 1
        let now = timeBase.monotonicNow()
        let wall = timeBase.wallNow()
        let operation = input.byte()
        let source = sources[Int(operation >> 4) % sources.count]
        var sample: OffsetSample?
        switch operation & 0x0F {
        case 0, 1:
            let t4 = input.monotonic(near: now)
            let t1 = input.monotonic(near: t4.advanced(by: .milliseconds(-20)))
            let t2 = input.unixTime(near: wall.advanced(by: .milliseconds(-10)))
            let t3 = input.unixTime(near: t2)
            let uncertainty = input.duration()
            trace("exchange(source: \(source), t1: \(t1.nanoseconds), t2: \(t2.nanoseconds), t3: \(t3.nanoseconds), t4: \(t4.nanoseconds), uncertainty: \(uncertainty))")
            sample = try? OffsetSample.exchange(
                source: source, requestSent: t1, serverReceive: t2, serverTransmit: t3, responseReceived: t4,
                serverUncertainty: uncertainty)
        case 2:
            let t4 = input.monotonic(near: now)
            let t1 = input.monotonic(near: t4.advanced(by: .milliseconds(-20)))
            let serverTime = input.unixTime(near: wall)
            let resolution = input.pick([.seconds(1), .milliseconds(1), .zero, input.duration()])
            trace("timestamp(source: \(source), serverTime: \(serverTime.nanoseconds), resolution: \(resolution), t1: \(t1.nanoseconds), t4: \(t4.nanoseconds))")
            sample = try? OffsetSample.timestamp(
                source: source, serverTime: serverTime, resolution: resolution, requestSent: t1, responseReceived: t4)
        case 3:
            let t4 = input.monotonic(near: now)
            let t1 = input.monotonic(near: t4.advanced(by: .milliseconds(-20)))
            let serverTime = input.unixTime(near: wall)
            let processing = input.duration()
            let uncertainty = input.duration()
            trace("stamped(source: \(source), serverTime: \(serverTime.nanoseconds), processing: \(processing), t1: \(t1.nanoseconds), t4: \(t4.nanoseconds), uncertainty: \(uncertainty))")
            sample = try? OffsetSample.stamped(
                source: source, serverTime: serverTime, processingTime: processing,
                requestSent: t1, responseReceived: t4, serverUncertainty: uncertainty)
        case 4:
            // Time passes: the monotonic clock never runs backwards, and counts at most 200 years of
            // uptime (the range the core admits), so readings are checked up to the end of it.
            let step = input.nanoseconds(near: 64_000_000_000)
            let duration = Duration.nanoseconds(min(step == .min ? Int64.max : abs(step), maximumUptime - now.nanoseconds))
            trace("advance(by: \(duration))")
            timeBase.advance(by: duration)
        case 5:
            // The user sets the wall clock; then the clock checks it.
            let jump = input.duration()
            trace("jumpWall(by: \(jump)); checkWallClock()")
            timeBase.jumpWall(by: jump)
            clock.checkWallClock()
        case 6:
            trace("removeSource(\(source))")
            clock.removeSource(source)
            checkOutcome(estimator.removeSource(source), configuration)
        case 7:
            let t4 = input.monotonic(near: now)
            let t1 = input.monotonic(near: t4.advanced(by: .milliseconds(-20)))
            let remaining = input.duration()
            let resolution = input.duration()
            trace("DeadlineInterval.remaining(\(remaining), resolution: \(resolution), t1: \(t1.nanoseconds), t4: \(t4.nanoseconds))")
            _ = try? DeadlineInterval.remaining(remaining, resolution: resolution, requestSent: t1, responseReceived: t4)
        default:
            let at = input.monotonic(near: now)
            _ = clock.reading(at: at)
            let deadline = input.unixTime(near: wall)
            _ = clock.deviceTime(forServerTime: deadline)
            _ = clock.serverTime(forDeviceTime: deadline)
            let end = input.unixTime(near: deadline)
            trace("reading(at: \(at.nanoseconds)); deviceTime/serverTime(\(deadline.nanoseconds)); position(in: \(deadline.nanoseconds), \(end.nanoseconds))")
            _ = clock.position(in: min(deadline, end)..<max(deadline, end))
        }
        if let sample {
            trace("  → sample \(sample.source) offset [\(sample.offset.lower), \(sample.offset.upper)] at \(sample.time.nanoseconds), span \(sample.span), delay \(sample.delay)")
            checkSample(sample)
            checkOutcome(estimator.add(sample), configuration)
            clock.calibrate(with: sample)
        }
        checkReadings(of: clock)
    }
    return 0
}

/// 200 years of uptime, in nanoseconds.
private let maximumUptime: Int64 = 200 * 365 * 86_400 * 1_000_000_000

private let tracing = getenv("FUZZ_TRACE") != nil

private func trace(_ line: @autoclosure () -> String) {
    guard tracing else { return }
    // Unbuffered, so the trace up to a trap survives it.
    var text = line() + "\n"
    text.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
}

private func checkSample(_ sample: OffsetSample) {
    check(!sample.source.isEmpty, "a sample without a source")
    check(sample.span >= 0 && sample.delay >= 0, "negative span \(sample.span) or delay \(sample.delay)")
}

private func checkOutcome(_ outcome: EstimatorOutcome, _ configuration: EstimatorConfiguration) {
    guard case .calibrated(let calibration) = outcome else { return }
    let rate = calibration.rate
    check(rate.lower.isFinite && rate.upper.isFinite && rate.estimate.isFinite, "non-finite rate \(rate)")
    check(rate.lower <= rate.estimate && rate.estimate <= rate.upper, "rate estimate outside its bounds: \(rate)")
    check(rate.maxMagnitude <= configuration.maxDrift * (1 + 1e-9), "rate \(rate) beyond the drift prior")
    check(calibration.offset.contains(calibration.estimate), "estimate outside the calibration's bounds")
    check(!calibration.sources.isEmpty, "a calibration without sources")
}
