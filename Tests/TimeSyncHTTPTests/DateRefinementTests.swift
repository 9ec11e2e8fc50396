import Testing
import TimeSync
import TimeSyncTesting
import TimeSyncAsyncHTTPClient
import TimeSyncHTTP

/// A server whose clock reads monotonic + `theta` and stamps a one-second `Date` somewhere inside
/// each request's round trip.
private struct SimulatedDateServer {
    var theta: Int64
    var generator: SeededGenerator

    /// Sends at `t1`; returns the sample and the reply instant.
    mutating func exchange(at t1: Int64) throws -> OffsetSample {
        let uplink = Int64.random(in: 100_000...600_000, using: &generator)
        let downlink = Int64.random(in: 100_000...600_000, using: &generator)
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
        #expect(throws: SampleError.emptyInterval) { try refinement.add(stale) }
        #expect(refinement == before)
    }

    @Test("the lowest-latency host is preferred")
    func lowestLatency() throws {
        func sample(delay: Int64) throws -> OffsetSample {
            try OffsetSample.timestamp(
                source: "s", serverTime: UnixTime(seconds: 1000), resolution: .seconds(1),
                requestSent: MonotonicInstant(nanoseconds: 0), responseReceived: MonotonicInstant(nanoseconds: delay))
        }
        #expect(HTTPDateCalibrator.lowestLatency([[try sample(delay: 30_000_000)], [try sample(delay: 9_000_000), try sample(delay: 50_000_000)], []]) == 1)
        #expect(HTTPDateCalibrator.lowestLatency([[], []]) == nil)
    }
}
