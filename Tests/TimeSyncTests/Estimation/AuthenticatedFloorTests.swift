import Foundation
import Testing
import TimeSync

/// Authenticated sources bound the vote: spoofers that outnumber the honest servers cannot move the
/// time outside the signed interval.
@Suite struct AuthenticatedFloorTests {
    static let second: Int64 = 1_000_000_000
    static let start = MonotonicInstant(nanoseconds: 1_000 * second)

    static func sample(_ source: String, _ lower: Int64, _ upper: Int64) throws -> OffsetSample {
        try OffsetSample(source: source, offset: OffsetInterval(lower: lower, upper: upper), time: start, span: 10_000_000, delay: 10_000_000)
    }

    /// θ is 1000 s (server time − monotonic time); Roughtime signs ±1 s around it; three spoofers
    /// agree on 1005 s, one honest server says 1000 s.
    static func feed(_ estimator: inout IntersectionEstimator) throws -> EstimatorOutcome {
        var outcome = EstimatorOutcome.noSamples
        outcome = estimator.add(try sample("roughtime://signed", 999 * second, 1001 * second))
        for name in ["ntp://spoof-a", "ntp://spoof-b", "ntp://spoof-c"] {
            outcome = estimator.add(try sample(name, 1005 * second - 1_000_000, 1005 * second + 1_000_000))
        }
        outcome = estimator.add(try sample("ntp://honest", 1000 * second - 1_000_000, 1000 * second + 1_000_000))
        return outcome
    }

    @Test func withoutTheFloorTheSpoofersWinTheVote() throws {
        var estimator = IntersectionEstimator()
        guard case .calibrated(let calibration) = try Self.feed(&estimator) else { Issue.record("no calibration"); return }
        #expect(calibration.sources == ["ntp://spoof-a", "ntp://spoof-b", "ntp://spoof-c"])
        #expect(abs(calibration.estimate - 1005 * Self.second) < Self.second / 100)
    }

    @Test func withTheFloorTheSpoofersAreFalsetickers() throws {
        var estimator = IntersectionEstimator(EstimatorConfiguration(authenticatedSources: ["roughtime://signed"]))
        guard case .calibrated(let calibration) = try Self.feed(&estimator) else { Issue.record("no calibration"); return }
        #expect(calibration.sources == ["ntp://honest", "roughtime://signed"])
        #expect(abs(calibration.estimate - 1000 * Self.second) < Self.second / 100)
        #expect(calibration.offset.lower >= 999 * Self.second && calibration.offset.upper <= 1001 * Self.second)
    }

    /// Inside the signed second, votes still count; the result never leaves it.
    @Test func spoofersInsideTheFloorAreCutToIt() throws {
        var estimator = IntersectionEstimator(EstimatorConfiguration(authenticatedSources: ["roughtime://signed"]))
        _ = estimator.add(try Self.sample("roughtime://signed", 999 * Self.second, 1001 * Self.second))
        var outcome = EstimatorOutcome.noSamples
        for name in ["ntp://a", "ntp://b"] {
            outcome = estimator.add(try Self.sample(name, 1000 * Self.second + Self.second / 2, 1003 * Self.second))
        }
        guard case .calibrated(let calibration) = outcome else { Issue.record("no calibration"); return }
        // The fit widens each interval by the local clock's drift over the exchange (10 ms × 100 ppm).
        let drift: Int64 = 1_000
        #expect(calibration.offset.upper <= 1001 * Self.second + drift)
        #expect(calibration.offset.lower >= 1000 * Self.second + Self.second / 2 - drift)
    }

    @Test func authenticatedSourcesThatContradictEachOtherGiveNoTime() throws {
        let names: Set = ["roughtime://a", "roughtime://b"]
        var estimator = IntersectionEstimator(EstimatorConfiguration(authenticatedSources: names))
        _ = estimator.add(try Self.sample("roughtime://a", 999 * Self.second, 1001 * Self.second))
        _ = estimator.add(try Self.sample("ntp://x", 1000 * Self.second, 1000 * Self.second + 1_000_000))
        let outcome = estimator.add(try Self.sample("roughtime://b", 2000 * Self.second, 2002 * Self.second))
        #expect(outcome == .noMajority(sources: 2, largestAgreeing: 1))
    }

    @Test func theFloorSurvivesACodableRoundTrip() throws {
        let configuration = EstimatorConfiguration(authenticatedSources: ["roughtime://signed"])
        let decoded = try JSONDecoder().decode(EstimatorConfiguration.self, from: JSONEncoder().encode(configuration))
        #expect(decoded.authenticatedSources == ["roughtime://signed"])
    }
}
