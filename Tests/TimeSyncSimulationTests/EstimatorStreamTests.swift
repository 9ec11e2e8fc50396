import Foundation
import Testing
import TimeSync
import TimeSyncSimulation

/// The streams another implementation of the estimator replays (the JavaScript client's tests read
/// `web/test/fixtures/estimator-streams.json`), and the simulator scoring outcomes computed elsewhere.
@Suite struct EstimatorStreamTests {
    /// The committed fixture, as `timesync simulate --scenario all --write-streams` wrote it.
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../web/test/fixtures/estimator-streams.json").standardizedFileURL

    @Test("the committed fixture is what the simulator and the estimator give today")
    func theFixtureIsCurrent() throws {
        let committed = try JSONDecoder().decode([EstimatorStream].self, from: Data(contentsOf: Self.fixture))
        #expect(committed.map(\.scenario) == SimulationScenario.builtIn.map(\.name))
        for stream in committed {
            let scenario = try #require(SimulationScenario.named(stream.scenario))
            let today = EstimatorStream(scenario, seed: stream.seed)
            #expect(today == stream, "\(stream.scenario): regenerate with `swift run --traits CLI timesync simulate --scenario all --write-streams \(Self.fixture.path)`")
        }
    }

    @Test("each row is the estimator's outcome after that sample")
    func rowsAreTheEstimatorsOutcomes() throws {
        let stream = EstimatorStream(.falsetickers, seed: 3, limit: 60)
        #expect(stream.samples.count == 60)
        #expect(stream.outcomes.count == 60)
        #expect(stream.samples.allSatisfy { $0.count == 6 })
        // Replayed by hand: the same outcome kinds and, for calibrations, anchor, bounds and estimate.
        var estimator = IntersectionEstimator()
        for (row, outcomeRow) in zip(stream.samples, stream.outcomes) {
            let sample = try OffsetSample(
                source: row[0], offset: OffsetInterval(lower: try #require(Int64(row[1])), upper: try #require(Int64(row[2]))),
                time: MonotonicInstant(nanoseconds: try #require(Int64(row[3]))), span: try #require(Int64(row[4])),
                delay: try #require(Int64(row[5])))
            switch estimator.add(sample) {
            case .calibrated(let c), .contradicted(let c):
                #expect(Array(outcomeRow[1...4]) == [c.time.nanoseconds, c.offset.lower, c.offset.upper, c.estimate].map { String($0) })
                #expect(Double(outcomeRow[7]) == c.rate.estimate)
            case .noMajority: #expect(outcomeRow == ["noMajority"])
            case .noSamples: #expect(outcomeRow == ["noSamples"])
            }
        }
        #expect(Set(stream.outcomes.map(\.[0])).isSuperset(of: ["calibrated", "noMajority"]))
    }

    @Test("replaying the default estimator's own outcomes scores exactly as the estimator")
    func replayScoresTheSame() throws {
        let configuration = EstimatorConfiguration()
        for scenario in [SimulationScenario.wifi, .serverStep, .falsetickers] {
            let stream = EstimatorStream(scenario, seed: 11)
            let outcomes = try EstimatorStream.decode(stream.outcomes, slew: configuration.slewAllowance)
            let report = Simulation.run(scenario, seed: 11, strategies: [.intersection, .replayed(name: "replayed", outcomes: outcomes)])
            let (own, replayed) = (report.strategies[0], report.strategies[1])
            #expect(replayed.name == "replayed")
            #expect(own.medianError == replayed.medianError, "\(scenario.name)")
            #expect(own.p99Error == replayed.p99Error, "\(scenario.name)")
            #expect(own.coverage == replayed.coverage, "\(scenario.name)")
            #expect(own.unsynchronizedReadings == replayed.unsynchronizedReadings, "\(scenario.name)")
        }
    }

    @Test("a row that is not an outcome is refused, naming the row", arguments: [
        [["calibrated", "1", "2", "3", "4", "0", "0", "0"], ["calibrated", "1", "2"]],
        [["noSamples"], ["calibrated", "1", "5", "3", "4", "0", "0", "0"]],  // lower above upper
        [["noSamples"], ["calibrated", "-1", "2", "3", "2", "0", "0", "0"]],  // an anchor before boot
        [["noSamples"], ["calibrated", "1", "2", "3", "2", "0.5", "0.6", "0.5"]],  // a rate beyond 1 %
        [["noSamples"], ["calibrated", "1", "2", "3", "2", "nan", "0", "0"]],
        [["noSamples"], ["kind of"]],
        [["noSamples"], []],
    ])
    func badRowsAreRefused(rows: [[String]]) {
        #expect(throws: EstimatorStreamError(row: 1)) { try EstimatorStream.decode(rows, slew: .none) }
    }

    @Test("past the replayed outcomes the estimator has none")
    func pastTheEnd() throws {
        var estimator = ReplayedEstimator(outcomes: [.noMajority(sources: 2, largestAgreeing: 1)])
        let sample = try OffsetSample(source: "a", offset: OffsetInterval(exactly: 0), time: MonotonicInstant(nanoseconds: 1), span: 0, delay: 0)
        #expect(estimator.add(sample) == .noMajority(sources: 2, largestAgreeing: 1))
        #expect(estimator.add(sample) == .noSamples)
        #expect(estimator.sources == ["a"])
        #expect(estimator.removeSource("a") == .noSamples)
        #expect(estimator.samples.isEmpty)
    }
}
