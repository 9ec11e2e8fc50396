import Testing
import TimeSync
import TimeSyncSimulation

@Suite struct SimulationTests {
    @Test func theSameSeedGivesTheSameReport() {
        let a = Simulation.run(.mobile, seed: 11)
        let b = Simulation.run(.mobile, seed: 11)
        let c = Simulation.run(.mobile, seed: 12)
        #expect(a == b)
        #expect(a != c)
        #expect(a.strategies.map(\.name) == ["default", "latest", "lowest-delay", "ema", Simulation.wallClockBaseline])
        let peers = Simulation.run(.lan, seed: 1, strategies: Strategy.comparison, seriesPoints: 100)
        #expect(peers.strategies.map(\.name) == ["default", "latest", "lowest-delay", "ema", "kronos", "timesync-js", Simulation.wallClockBaseline])
        #expect(peers.result("default")?.series?.count == 100)
    }

    /// The acceptance bar of the core: honest bounds everywhere, and on the hard scenarios a p99 error
    /// at most half the best other strategy's. The simulator is deterministic, so these are exact
    /// regressions checks, not timing assertions.
    @Test(arguments: ["lan", "wifi", "mobile", "asymmetric", "falsetickers", "offline-drift", "tamper"])
    func defaultStrategyMeetsTheBar(name: String) throws {
        let scenario = try #require(SimulationScenario.named(name))
        let report = Simulation.run(scenario, seed: 7)
        let ours = try #require(report.result("default"))
        #expect(ours.coverage >= 0.999, "coverage \(ours.coverage)")
        #expect(ours.readings > 0)
        if ["mobile", "falsetickers", "offline-drift"].contains(name) {
            let best = ["latest", "lowest-delay", "ema"].compactMap { report.result($0)?.p99Error }.min()!
            #expect(ours.p99Error <= 0.5 * best, "p99 \(ours.p99Error) vs best other strategy \(best)")
        }
    }

    /// HTTP and `Date` servers whose answers are 30 s off for 10 s now and then, or that replay one
    /// stored response after an hour: one measurement's agreeing samples never move the default
    /// strategy (every reading it vouched for is right, and it stops vouching for a replay), while
    /// the strategy that takes the latest sample follows them.
    @Test(arguments: [
        ("http-glitch", 1, 25.0), ("date-glitch", 1, 25.0), ("http-replay", 3000, 3000.0), ("date-replay", 3000, 3000.0),
    ])
    func aGlitchOrAReplayIsNeverVouchedFor(name: String, unvouched: Int, latestWorst: Double) throws {
        let report = Simulation.run(try #require(SimulationScenario.named(name)), seed: 7)
        let ours = try #require(report.result("default"))
        #expect(ours.coverage == 1, "coverage \(ours.coverage)")
        #expect(ours.maxError < 0.5, "max \(ours.maxError)")
        #expect(ours.unsynchronizedReadings >= unvouched, "readings not vouched for: \(ours.unsynchronizedReadings)")
        #expect(try #require(report.result("latest")).maxError > latestWorst)
    }

    @Test func tamperingFoolsAWallClockAnchoredImplementationOnly() throws {
        let report = Simulation.run(.tamper, seed: 7)
        let ours = try #require(report.result("default"))
        let wallAnchored = try #require(report.result(Simulation.wallClockBaseline))
        #expect(ours.maxError < 0.1)
        #expect(wallAnchored.maxError > 3000)  // it believed the +1 h / +1 day jumps until the next sample
    }

    @Test func falsetickersAreOutvoted() throws {
        let report = Simulation.run(.falsetickers, seed: 3)
        #expect(try #require(report.result("default")).maxError < 0.05)
        #expect(try #require(report.result("latest")).maxError > 2)
    }

    /// A server slewed at up to 500 ppm: with the default slew allowance every reading's bounds hold,
    /// and the estimates are the steady fit's (the allowance widens bounds, never moves estimates).
    /// Without it (a steady server assumed) readings miss until the samples contradict the window.
    @Test func aSlewingServer() throws {
        let report = Simulation.run(.serverSlew, seed: 7)
        let ours = try #require(report.result("default"))
        #expect(ours.coverage == 1, "coverage \(ours.coverage)")
        #expect(ours.p99Error < 0.02, "p99 \(ours.p99Error)")
        let steady = try #require(Simulation.run(.serverSlew, seed: 7, configuration: EstimatorConfiguration(serverSlew: 0)).result("default"))
        #expect(steady.coverage < 0.95, "steady-server bounds held through a 500 ppm slew: \(steady.coverage)")
        #expect(steady.unsynchronizedReadings > 0, "the contradiction was never seen")
        #expect(steady.medianError == ours.medianError && steady.p99Error == ours.p99Error)
        #expect(steady.medianHalfWidth < ours.medianHalfWidth)
    }

    /// Over every scenario, the allowance changes bounds only: the same estimates, wider bounds, and
    /// coverage never lower.
    @Test func theSlewAllowanceWidensBoundsAndMovesNoEstimate() throws {
        for scenario in SimulationScenario.builtIn {
            let allowed = try #require(Simulation.run(scenario, seed: 3, strategies: [.intersection]).result("default"))
            let steady = try #require(
                Simulation.run(scenario, seed: 3, strategies: [.intersection], configuration: EstimatorConfiguration(serverSlew: 0))
                    .result("default"))
            #expect(allowed.medianError == steady.medianError && allowed.maxError == steady.maxError, "\(scenario.name)")
            #expect(allowed.coverage >= steady.coverage, "\(scenario.name)")
            #expect(allowed.medianHalfWidth >= steady.medianHalfWidth, "\(scenario.name)")
        }
    }

    @Test func everyScenarioDocumentsWhereItsNumbersComeFrom() {
        for scenario in SimulationScenario.builtIn {
            #expect(scenario.provenance.count > 100, "\(scenario.name)")
            #expect(scenario.duration > 0 && scenario.pollInterval > 0)
        }
        #expect(SimulationScenario.named("nonexistent") == nil)
    }
}
