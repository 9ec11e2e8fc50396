import TimeSync
import TimeSyncTesting

/// Runs strategies on a simulated world with known ground truth.
///
/// Time in the simulated world is true time `t` in seconds from the start. The device's monotonic
/// clock runs at `1 + localDrift` of true time; its wall clock follows the monotonic clock plus the
/// user's jumps. Every server answers with its own clock (true time plus its error); the truth the
/// strategies are judged against is the first server's clock. Every strategy sees the same sample
/// stream, generated once from the seed.
package enum Simulation {
    /// A simulator-only baseline: the common hand-rolled approach that caches `server − local wall
    /// clock` from the latest sample, so it follows every jump of the wall clock.
    package static let wallClockBaseline = "wall-clock-latest"

    /// Runs every strategy on the scenario.
    /// - Parameters:
    ///   - scenario: The world.
    ///   - seed: The random seed; the same seed gives the same report.
    ///   - strategies: The strategies to compare (default: all).
    ///   - configuration: The estimators' settings.
    ///   - seriesPoints: When above zero, each result also carries about this many (time, error)
    ///     points, for charts.
    /// - Returns: Error and coverage figures per strategy.
    /// - Complexity: O(samples · window² + readings · strategies).
    package static func run(
        _ scenario: SimulationScenario, seed: UInt64, strategies: [Strategy] = Strategy.all,
        configuration: EstimatorConfiguration = .init(), seriesPoints: Int = 0
    ) -> SimulationReport {
        let world = World(scenario: scenario)
        let measurements = world.measurements(seed: seed)
        var estimators = strategies.map { $0.makeEstimator(configuration) }
        var calibrations = [Calibration?](repeating: nil, count: strategies.count)
        var statistics = [ErrorStatistics](repeating: ErrorStatistics(), count: strategies.count + 1)
        let readingCount = Int(scenario.duration / scenario.readingInterval)
        let seriesStride = seriesPoints > 0 ? max(1, readingCount / seriesPoints) : 0
        var readingIndex = 0
        var wallBaseline: (wallOffset: Int64, halfWidth: Int64)?
        var next = 0
        var t = scenario.readingInterval
        while t <= scenario.duration {
            // Deliver every measurement whose last reply arrived by now, as one.
            while next < measurements.count && measurements[next].arrival <= t {
                let batch = measurements[next].samples
                let sample = batch[batch.count - 1]
                for index in estimators.indices {
                    switch estimators[index].add(contentsOf: batch) ?? .noSamples {
                    case .calibrated(let calibration): calibrations[index] = calibration
                    // Not vouched for: the reading counts as unsynchronized, not against coverage.
                    case .contradicted, .noMajority: calibrations[index] = nil
                    case .noSamples: calibrations[index] = nil
                    }
                }
                // The wall-clock baseline: server − local wall clock, taken at the last reply.
                let wallAtReply = world.wall(at: measurements[next].arrival)
                wallBaseline = (
                    sample.offset.midpoint + sample.time.nanoseconds - wallAtReply.nanoseconds,
                    sample.offset.halfWidth
                )
                next += 1
            }
            let monotonic = world.monotonic(at: t)
            let truth = world.truth(at: t).nanoseconds - monotonic.nanoseconds
            for index in estimators.indices {
                guard let calibration = calibrations[index] else {
                    statistics[index].unsynchronized += 1
                    continue
                }
                let (estimate, bounds) = calibration.offset(at: monotonic)
                statistics[index].add(
                    error: Double(estimate - truth) / 1e9, halfWidth: Double(bounds.halfWidth) / 1e9, covered: bounds.contains(truth))
                if seriesStride > 0 && readingIndex % seriesStride == 0 {
                    statistics[index].series.append(SeriesPoint(time: t, error: Double(estimate - truth) / 1e9))
                }
            }
            readingIndex += 1
            if let wallBaseline {
                let wall = world.wall(at: t).nanoseconds
                let estimate = wall + wallBaseline.wallOffset - monotonic.nanoseconds
                let bounds = OffsetInterval(exactly: estimate).widened(by: wallBaseline.halfWidth)
                statistics[strategies.count].add(
                    error: Double(estimate - truth) / 1e9, halfWidth: Double(bounds.halfWidth) / 1e9, covered: bounds.contains(truth))
            } else {
                statistics[strategies.count].unsynchronized += 1
            }
            t += scenario.readingInterval
        }
        var results = strategies.indices.map { statistics[$0].result(name: strategies[$0].name) }
        results.append(statistics[strategies.count].result(name: wallClockBaseline))
        return SimulationReport(
            scenario: scenario.name, seed: seed, samples: measurements.map(\.samples.count).reduce(0, +),
            readings: readingCount, strategies: results)
    }

    /// The simulated world's clocks.
    struct World {
        let scenario: SimulationScenario
        /// The monotonic clock's reading at the start (as if booted 1000 s earlier).
        let monotonicStart: Int64 = 1_000_000_000_000
        /// True time at the start: 2026-01-01T00:00:00Z.
        let trueStart: Int64 = 1_767_225_600_000_000_000

        func monotonic(at t: Double) -> MonotonicInstant {
            MonotonicInstant(nanoseconds: monotonicStart + Int64(clamping: t * (1 + scenario.localDrift) * 1e9))
        }

        func serverClock(_ server: SimulatedServer, at t: Double) -> UnixTime {
            UnixTime(nanoseconds: trueStart + Int64(clamping: (t + server.error(at: t)) * 1e9))
        }

        func truth(at t: Double) -> UnixTime { serverClock(scenario.servers[0], at: t) }

        func wall(at t: Double) -> UnixTime {
            let jumps = scenario.wallClockJumps.filter { $0.at <= t }.map(\.by).reduce(0, +)
            return UnixTime(nanoseconds: trueStart + Int64(clamping: (t * (1 + scenario.localDrift) + jumps) * 1e9))
        }

        func isOffline(_ t: Double) -> Bool { scenario.offline.contains { $0.contains(t) } }

        /// What a server answers at `t`: its clock, a glitch's or a replayed answer's time.
        func answer(_ server: SimulatedServer, at t: Double) -> UnixTime {
            UnixTime(nanoseconds: trueStart + Int64(clamping: (t + server.answerError(at: t)) * 1e9))
        }

        /// Every measurement of the run (a poll's exchanges that were answered), in order of its last
        /// reply's arrival.
        func measurements(seed: UInt64) -> [(arrival: Double, samples: [OffsetSample])] {
            var generator = SeededGenerator(seed: seed)
            var result: [(arrival: Double, samples: [OffsetSample])] = []
            for (index, server) in scenario.servers.enumerated() {
                // Servers are polled out of phase with each other.
                var t = scenario.pollInterval * Double(index) / Double(scenario.servers.count) + 0.5
                while t < scenario.duration {
                    defer { t += scenario.pollInterval * (0.9 + 0.2 * generator.nextUnit()) }
                    var batch: [OffsetSample] = []
                    var last = t
                    for request in 0..<server.requestsPerPoll {
                        let sent = t + Double(request) * 0.05
                        let forward = scenario.forward.sample(&generator)
                        let backward = scenario.backward.sample(&generator)
                        let lost = generator.nextBool(probability: scenario.loss) || generator.nextBool(probability: scenario.loss)
                        let arrival = sent + forward + server.processing + backward
                        if lost || isOffline(sent) || isOffline(arrival) || arrival > scenario.duration { continue }
                        guard let sample = exchange(server, sent: sent, forward: forward, arrival: arrival) else { continue }
                        batch.append(sample)
                        last = max(last, arrival)
                    }
                    if !batch.isEmpty { result.append((last, batch)) }
                }
            }
            return result.sorted { $0.arrival < $1.arrival }
        }

        /// One exchange's sample, by the server's scheme: its receive and transmit stamps, or the
        /// `Date` of its transmit time (truncated to the second).
        private func exchange(_ server: SimulatedServer, sent: Double, forward: Double, arrival: Double) -> OffsetSample? {
            let transmit = answer(server, at: sent + forward + server.processing)
            switch server.scheme {
            case .exchange:
                return try? OffsetSample.exchange(
                    source: server.name, requestSent: monotonic(at: sent), serverReceive: answer(server, at: sent + forward),
                    serverTransmit: transmit, responseReceived: monotonic(at: arrival))
            case .date:
                let second: Int64 = 1_000_000_000
                let truncated = UnixTime(nanoseconds: transmit.nanoseconds - ((transmit.nanoseconds % second) + second) % second)
                return try? OffsetSample.timestamp(
                    source: server.name, serverTime: truncated, resolution: .seconds(1), requestSent: monotonic(at: sent),
                    responseReceived: monotonic(at: arrival))
            }
        }
    }
}

/// Error statistics of one strategy over a run.
struct ErrorStatistics {
    var errors: [Double] = []
    var halfWidths: [Double] = []
    var covered = 0
    var unsynchronized = 0
    var series: [SeriesPoint] = []

    mutating func add(error: Double, halfWidth: Double, covered isCovered: Bool) {
        errors.append(abs(error))
        halfWidths.append(halfWidth)
        if isCovered { covered += 1 }
    }

    func result(name: String) -> StrategyResult {
        let sorted = errors.sorted()
        let widths = halfWidths.sorted()
        func quantile(_ q: Double) -> Double {
            guard !sorted.isEmpty else { return .nan }
            // Nearest-rank quantile.
            let rank = Int((q * Double(sorted.count)).rounded(.up))
            return sorted[min(sorted.count, max(rank, 1)) - 1]
        }
        return StrategyResult(
            name: name, medianError: quantile(0.5), p99Error: quantile(0.99), maxError: sorted.last ?? .nan,
            medianHalfWidth: widths.isEmpty ? .nan : widths[(widths.count - 1) / 2],
            coverage: sorted.isEmpty ? .nan : Double(covered) / Double(sorted.count),
            readings: sorted.count, unsynchronizedReadings: unsynchronized, series: series.isEmpty ? nil : series)
    }
}
