import TimeSync

/// A scenario's sample stream with what the default estimator concluded after each sample: what an
/// implementation of the same estimator in another language replays to check it gives the same
/// answers (the JavaScript client's tests read such streams).
///
/// Integers are written as decimal strings, so a JSON reader with 53-bit numbers loses nothing.
package struct EstimatorStream: Sendable, Hashable, Codable {
    /// The scenario's name.
    package var scenario: String
    /// The seed the stream was generated from.
    package var seed: UInt64
    /// The estimator's settings, in nanoseconds and plain ratios.
    package var configuration: Settings
    /// Each sample in order of arrival: source, lower, upper, time, span, delay (nanoseconds).
    package var samples: [[String]]
    /// How many of ``samples``, in order, each measurement holds, when a measurement holds more than
    /// one (an HTTP source's several requests); `nil` when each sample is a measurement of its own.
    package var measurements: [Int]?
    /// After each measurement (each sample, without ``measurements``): the outcome's kind, then for a
    /// calibration its anchor, lower and upper bounds and estimate (nanoseconds), and its rate's
    /// lower bound, upper bound and estimate.
    package var outcomes: [[String]]

    /// `EstimatorConfiguration` as the stream carries it.
    package struct Settings: Sendable, Hashable, Codable {
        /// `EstimatorConfiguration/maxDrift`.
        package var maxDrift: Double
        /// `EstimatorConfiguration/rateWander`.
        package var rateWander: Double
        /// `EstimatorConfiguration/windowSize`.
        package var windowSize: Int
        /// `EstimatorConfiguration/sourceTimeout`, in nanoseconds.
        package var sourceTimeout: String
        /// `EstimatorConfiguration/serverSlew`.
        package var serverSlew: Double
        /// `EstimatorConfiguration/serverSlewLimit`, in nanoseconds.
        package var serverSlewLimit: String

        init(_ configuration: EstimatorConfiguration) {
            maxDrift = configuration.maxDrift
            rateWander = configuration.rateWander
            windowSize = configuration.windowSize
            sourceTimeout = String(configuration.sourceTimeout.nanosecondsClamped)
            serverSlew = configuration.serverSlew
            serverSlewLimit = String(configuration.serverSlewLimit.nanosecondsClamped)
        }
    }

    /// Generates the scenario's stream from the seed and runs `IntersectionEstimator` over it.
    /// - Parameters:
    ///   - scenario: The simulated world.
    ///   - seed: The random seed; the same seed gives the same stream.
    ///   - configuration: The estimator's settings, written into the stream.
    ///   - limit: At most this many samples, the first ones.
    package init(_ scenario: SimulationScenario, seed: UInt64, configuration: EstimatorConfiguration = .init(), limit: Int = .max) {
        // Whole measurements, up to `limit` samples.
        var batches: [[OffsetSample]] = []
        var count = 0
        for measurement in Simulation.World(scenario: scenario).measurements(seed: seed) {
            guard count + measurement.samples.count <= max(0, limit) else { break }
            batches.append(measurement.samples)
            count += measurement.samples.count
        }
        var estimator = IntersectionEstimator(configuration)
        self.scenario = scenario.name
        self.seed = seed
        self.configuration = Settings(configuration)
        samples = batches.joined().map {
            [$0.source, String($0.offset.lower), String($0.offset.upper), String($0.time.nanoseconds), String($0.span), String($0.delay)]
        }
        measurements = batches.contains { $0.count > 1 } ? batches.map(\.count) : nil
        outcomes = batches.map { Self.encode(estimator.add(contentsOf: $0) ?? .noSamples) }
    }

    /// An outcome as a row of ``outcomes``.
    static func encode(_ outcome: EstimatorOutcome) -> [String] {
        switch outcome {
        case .calibrated(let c): ["calibrated"] + Self.numbers(c)
        case .contradicted(let c): ["contradicted"] + Self.numbers(c)
        case .noMajority: ["noMajority"]
        case .noSamples: ["noSamples"]
        }
    }

    private static func numbers(_ calibration: Calibration) -> [String] {
        [calibration.time.nanoseconds, calibration.offset.lower, calibration.offset.upper, calibration.estimate].map { String($0) }
            + [calibration.rate.lower, calibration.rate.upper, calibration.rate.estimate].map { String($0) }
    }

    /// The outcomes another implementation reported, one row per measurement as in ``outcomes``, read
    /// back into what the simulator scores.
    /// - Throws: ``EstimatorStreamError`` for a row that is not an outcome.
    package static func decode(_ rows: [[String]], slew: SlewAllowance) throws(EstimatorStreamError) -> [EstimatorOutcome] {
        try rows.enumerated().map { (index, row) throws(EstimatorStreamError) in
            switch row.first {
            case "noSamples": return .noSamples
            case "noMajority": return .noMajority(sources: 0, largestAgreeing: 0)
            case "calibrated", "contradicted":
                let values = row.dropFirst().prefix(4).compactMap { Int64($0) }
                let rates = row.dropFirst(5).compactMap { Double($0) }.filter { $0.isFinite && abs($0) <= EstimatorConfiguration.driftLimit }
                guard row.count == 8, values.count == 4, rates.count == 3, rates[0] <= rates[1],
                    SampleLimits.monotonicInstants.contains(values[0]),
                    let bounds = try? OffsetInterval(lower: values[1], upper: values[2])
                else { throw EstimatorStreamError(row: index) }
                let calibration = Calibration(
                    time: MonotonicInstant(nanoseconds: values[0]), offset: bounds, estimate: values[3],
                    rate: RateInterval(lower: rates[0], upper: rates[1], estimate: rates[2]), sources: [], slew: slew)
                return row[0] == "calibrated" ? .calibrated(calibration) : .contradicted(calibration)
            default: throw EstimatorStreamError(row: index)
            }
        }
    }
}

/// A row of replayed outcomes that is not an outcome.
package struct EstimatorStreamError: Error, Hashable, CustomStringConvertible {
    /// The row's index.
    package var row: Int

    /// The error for row `row`.
    package init(row: Int) { self.row = row }

    package var description: String {
        "outcome row \(row) is not a kind followed by an anchor, two bounds and an estimate in nanoseconds and a rate's bounds and estimate"
    }
}
