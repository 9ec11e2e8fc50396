import Testing
import TimeSync
import TimeSyncWire
import TimeSyncFixtures
import TimeSyncTesting

/// A server whose clock reads monotonic + `theta` and stamps a one-second `Date` somewhere inside
/// each request's round trip.
struct SimulatedDateServer {
    var theta: Int64
    var generator: SeededGenerator
    /// The range of each one-way delay, in nanoseconds.
    var delays: ClosedRange<Int64> = 100_000...600_000

    /// Sends at `t1`; returns the sample and the reply instant.
    mutating func exchange(at t1: Int64) throws -> OffsetSample {
        let uplink = Int64.random(in: delays, using: &generator)
        let downlink = Int64.random(in: delays, using: &generator)
        let stamp = t1 + uplink
        let serverSecond = (stamp + theta).floorDiv(1_000_000_000) * 1_000_000_000
        return try OffsetSample.timestamp(
            source: "sim", serverTime: UnixTime(nanoseconds: serverSecond), resolution: HTTPDate.resolution,
            requestSent: MonotonicInstant(nanoseconds: t1), responseReceived: MonotonicInstant(nanoseconds: stamp + downlink))
    }
}

extension Int64 {
    fileprivate func floorDiv(_ d: Int64) -> Int64 { self >= 0 ? self / d : -((-self + d - 1) / d) }
}

@Suite("Date-header refinement planner")
struct DateRefinementTests {
    @Test("planned requests keep the truth inside and shrink the bounds toward the round trip", arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
    func plannedRefinementConverges(seed: UInt64) throws {
        var generator = SeededGenerator(seed: seed)
        let theta = Int64.random(in: -1_000_000_000_000...1_000_000_000_000, using: &generator)
        var server = SimulatedDateServer(theta: theta, generator: generator)
        var refinement = DateRefinement()
        var now: Int64 = 5_000_000_000_000
        var widths: [Int64] = []
        for _ in 0..<10 {
            let send = refinement.nextSendTime(now: MonotonicInstant(nanoseconds: now), lead: 1_000_000).nanoseconds
            #expect(send >= now + 1_000_000)
            let sample = try server.exchange(at: send)
            try refinement.add(sample)
            let bounds = try #require(refinement.bounds)
            #expect(bounds.contains(theta), "the true offset must stay inside the bounds")
            widths.append(bounds.width)
            now = sample.time.nanoseconds + 50_000
        }
        // 1 s / 2⁹ ≈ 2 ms after nine planned requests, plus a round trip (≤ 1.2 ms) and drift allowance.
        #expect(widths.last! < 5_000_000, "widths: \(widths)")
        #expect(widths.first! > 900_000_000)
    }

    @Test("unplanned requests (one a second, unaligned) barely improve on one second")
    func unplannedIsWorse() throws {
        var generator = SeededGenerator(seed: 42)
        let theta: Int64 = 123_456_789_012
        var server = SimulatedDateServer(theta: theta, generator: generator)
        var refinement = DateRefinement()
        var now: Int64 = 1_000_000_000_000 + Int64.random(in: 0..<1_000_000_000, using: &generator)
        for _ in 0..<10 {
            let sample = try server.exchange(at: now)
            try refinement.add(sample)
            now += 1_000_000_000
        }
        let bounds = try #require(refinement.bounds)
        #expect(bounds.contains(theta))
        #expect(bounds.width > 100_000_000)
    }

    @Test("the next send puts the request's midpoint on the predicted second boundary")
    func aimsAtBoundary() throws {
        var refinement = DateRefinement()
        let first = refinement.nextSendTime(now: MonotonicInstant(nanoseconds: 10_000), lead: 2_000_000)
        #expect(first.nanoseconds == 2_010_000)
        // θ ∈ [S − t4, S + 1 s − t1] with S = 1000 s, t1 = 0.2 s, t4 = 0.2008 s.
        let sample = try OffsetSample.timestamp(
            source: "s", serverTime: UnixTime(seconds: 1000), resolution: .seconds(1),
            requestSent: MonotonicInstant(nanoseconds: 200_000_000), responseReceived: MonotonicInstant(nanoseconds: 200_800_000))
        try refinement.add(sample)
        let now = MonotonicInstant(nanoseconds: 201_000_000)
        let send = refinement.nextSendTime(now: now, lead: 1_000_000)
        let estimate = try #require(refinement.bounds(at: send)).midpoint
        let midpoint = send.nanoseconds + 400_000
        // The server's clock (by the estimate) crosses a whole second at the request's midpoint.
        #expect(abs((midpoint + estimate) % 1_000_000_000) < 1_000 || abs((midpoint + estimate) % 1_000_000_000 - 1_000_000_000) < 1_000)
        #expect(send >= now.advanced(by: .milliseconds(1)))
        #expect(send < now.advanced(by: .seconds(1) + .milliseconds(2)))
    }

    @Test("a contradicting sample is a typed error and changes nothing")
    func contradictionLeavesStateUnchanged() throws {
        var refinement = DateRefinement()
        let good = try OffsetSample.timestamp(
            source: "s", serverTime: UnixTime(seconds: 1000), resolution: .seconds(1),
            requestSent: MonotonicInstant(nanoseconds: 0), responseReceived: MonotonicInstant(nanoseconds: 1_000_000))
        try refinement.add(good)
        let before = refinement
        // A replayed response: the same Date ten seconds later.
        let stale = try OffsetSample.timestamp(
            source: "s", serverTime: UnixTime(seconds: 1000), resolution: .seconds(1),
            requestSent: MonotonicInstant(nanoseconds: 10_000_000_000), responseReceived: MonotonicInstant(nanoseconds: 10_001_000_000))
        expectThrows(SampleError.emptyInterval) { try refinement.add(stale) }
        #expect(refinement == before)
    }

}

/// The plan's actions executed against simulated servers: what a transport does, with chosen instants.
@Suite("Date refinement plan (sans I/O)")
struct DateRefinementPlanTests {
    /// Runs `plan` to its end against `servers` (a failing server is `nil`); returns the plan and the
    /// instants each request was sent at.
    static func execute(
        _ plan: inout DateRefinementPlan, servers: inout [SimulatedDateServer?], start: Int64 = 5_000_000_000_000
    ) throws -> [(source: Int, at: Int64)] {
        var now = start
        var sent: [(source: Int, at: Int64)] = []
        while case .send(let source, let instant) = plan.nextAction(at: MonotonicInstant(nanoseconds: now)) {
            #expect(instant.nanoseconds >= now)
            sent.append((source, instant.nanoseconds))
            guard var server = servers[source] else {
                plan.handleFailure(from: source)
                now += 10_000_000
                continue
            }
            let sample = try server.exchange(at: instant.nanoseconds)
            servers[source] = server
            try plan.handle(sample, from: source)
            now = sample.time.nanoseconds + 50_000
        }
        return sent
    }

    @Test("probes every source twice, refines the one with the lowest round trip, keeps the truth inside")
    func probesThenRefinesTheFastest() throws {
        let theta: Int64 = 123_456_789_012
        var servers: [SimulatedDateServer?] = [
            SimulatedDateServer(theta: theta, generator: SeededGenerator(seed: 1), delays: 20_000_000...40_000_000),
            SimulatedDateServer(theta: theta, generator: SeededGenerator(seed: 2)),
            nil,
        ]
        var plan = try DateRefinementPlan(sourceCount: 3, maxRequests: 16)
        let sent = try Self.execute(&plan, servers: &servers)
        #expect(sent.prefix(6).map(\.source) == [0, 0, 1, 1, 2, 2])
        #expect(plan.chosenSource == 1)
        #expect(sent.dropFirst(6).allSatisfy { $0.source == 1 })
        #expect(plan.requests == sent.count && plan.requests <= 16)
        #expect(plan.rejected == 2)
        let bounds = try #require(plan.refinement?.bounds)
        #expect(bounds.contains(theta))
        #expect(bounds.width < 10_000_000, "the bounds shrink far below a second: \(bounds.width) ns")
        #expect(plan.samples.count == sent.count - 4)
    }

    @Test("no probe answered: the plan finishes with no source chosen")
    func everyProbeFails() throws {
        var servers: [SimulatedDateServer?] = [nil, nil]
        var plan = try DateRefinementPlan(sourceCount: 2, maxRequests: 10)
        let sent = try Self.execute(&plan, servers: &servers)
        #expect(sent.count == 4)
        #expect(plan.chosenSource == nil && plan.samples.isEmpty && plan.rejected == 4)
    }

    @Test("a seed sample skips the probes; the budget counts the requests already used")
    func seededPlanRefinesAtOnce() throws {
        var server = SimulatedDateServer(theta: -9_000_000_000, generator: SeededGenerator(seed: 3))
        let seed = try server.exchange(at: 4_000_000_000_000)
        var servers: [SimulatedDateServer?] = [server]
        var plan = try DateRefinementPlan(sourceCount: 1, maxRequests: 5, requestsUsed: 2, seed: (0, seed))
        let sent = try Self.execute(&plan, servers: &servers)
        #expect(sent.count == 3 && plan.requests == 5)
        #expect(plan.samples.count == 4)
        #expect(try #require(plan.refinement?.bounds).contains(-9_000_000_000))
    }

    @Test("a budget below the probes, or no source, is a typed error")
    func invalidPlans() {
        expectThrows(DateRefinementPlanError.noSources) { try DateRefinementPlan(sourceCount: 0, maxRequests: 10) }
        expectThrows(DateRefinementPlanError.budgetTooSmall(requests: 3, probes: 4)) {
            try DateRefinementPlan(sourceCount: 2, maxRequests: 3)
        }
    }

    @Test("a response that contradicts the source's earlier ones is a typed error, counted as rejected")
    func contradictionIsAnError() throws {
        var server = SimulatedDateServer(theta: 0, generator: SeededGenerator(seed: 4))
        var plan = try DateRefinementPlan(sourceCount: 1, maxRequests: 4)
        guard case .send(0, let first) = plan.nextAction(at: MonotonicInstant(nanoseconds: 1_000_000_000_000)) else {
            Issue.record("expected a send")
            return
        }
        try plan.handle(try server.exchange(at: first.nanoseconds), from: 0)
        guard case .send(0, let second) = plan.nextAction(at: MonotonicInstant(nanoseconds: 1_001_000_000_000)) else {
            Issue.record("expected a send")
            return
        }
        server.theta += 5_000_000_000  // the server stepped 5 s
        expectThrows(SampleError.emptyInterval) { try plan.handle(try server.exchange(at: second.nanoseconds), from: 0) }
        #expect(plan.rejected == 1 && plan.samples.count == 1)
    }
}
