import TimeSync

/// Combines `Date`-header samples of one server and plans when to send the next request so the
/// combined bounds shrink below the header's one-second resolution. Pure math, no I/O.
///
/// Each `Date` sample bounds θ = server time − monotonic time to `[S − t4, S + 1 s − t1]`: about a
/// second wide. Intersecting samples only helps when their edges differ, so the planner times each
/// request so that, by the current estimate θ̂, the server's clock crosses a whole second exactly when
/// the request is halfway through its round trip. If the header then shows the new second, the server
/// stamped after the boundary and θ ≥ S − t4 ≈ θ̂ − delay/2; if it shows the old one, θ ≤ S − t1 ≈
/// θ̂ + delay/2. Either way the bounds halve (plus half a round trip), so after n well-timed requests
/// their width is about `1 s / 2ⁿ + delay`: the intersection shrinks toward the round-trip time.
///
/// Bounds are carried between samples with the local clock's worst-case drift (``maxDrift``), so the
/// combination stays honest however long the refinement takes.
package struct DateRefinement: Sendable, Hashable {
    /// The header's resolution in nanoseconds (one second for `Date`).
    package let resolution: Int64
    /// The largest frequency error the local monotonic clock may have, dimensionless.
    package let maxDrift: Double
    /// The samples combined so far, by time.
    package private(set) var samples: [OffsetSample] = []
    /// The intersection of every sample, carried to ``time``; `nil` before the first sample.
    package private(set) var bounds: OffsetInterval?
    /// The monotonic instant ``bounds`` refer to: the newest sample's reply.
    package private(set) var time: MonotonicInstant?
    /// The lowest round trip seen so far, in nanoseconds: the floor the bounds shrink toward.
    package private(set) var lowestDelay: Int64?

    /// Creates an empty refinement.
    /// - Parameters:
    ///   - resolution: The resolution of the server's timestamps; ``HTTPDate/resolution`` by default.
    ///   - maxDrift: The largest frequency error of the local monotonic clock (default 100 ppm).
    package init(resolution: Duration = HTTPDate.resolution, maxDrift: Double = 100e-6) {
        self.resolution = max(1, resolution.nanosecondsClamped)
        self.maxDrift = abs(maxDrift)
    }

    /// Adds a sample of the same server.
    ///
    /// - Parameter sample: A `Date` sample (`OffsetSample.timestamp(source:serverTime:resolution:requestSent:responseReceived:)`).
    /// - Throws: `SampleError.emptyInterval` when the sample contradicts the bounds so far (a cached
    ///   or replayed response, or the server stepped its clock); the refinement is left unchanged.
    /// - Complexity: O(n) for n samples so far (a refinement takes a handful).
    package mutating func add(_ sample: OffsetSample) throws(SampleError) {
        var combined = samples
        combined.insert(sample, at: combined.firstIndex { $0.time > sample.time } ?? combined.endIndex)
        let newest = combined[combined.count - 1].time
        let (intersection, oldest) = CarriedIntersection.newestAgreeing(combined, at: newest, rate: .symmetric(maxDrift))
        guard oldest == 0 else { throw SampleError.emptyInterval }
        bounds = intersection
        time = newest
        samples = combined
        lowestDelay = min(lowestDelay ?? .max, sample.delay)
    }

    /// The combined bounds carried to another instant with the worst-case drift.
    /// - Parameter instant: A monotonic instant.
    /// - Returns: The bounds on θ there, or `nil` before the first sample.
    package func bounds(at instant: MonotonicInstant) -> OffsetInterval? {
        guard let bounds, let time else { return nil }
        return RateInterval.symmetric(maxDrift).age(bounds, by: Double(instant.nanoseconds.saturatingSubtract(time.nanoseconds)))
    }

    /// Whether another well-timed request could still shrink the bounds noticeably: their width is
    /// above `slack` plus twice the lowest round trip (a request can shave at most half its own
    /// round trip less than half the width off).
    /// - Parameter slack: Extra width (in nanoseconds) considered not worth another request.
    package func canImprove(slack: Int64 = 0) -> Bool {
        guard let bounds, let lowestDelay else { return true }
        return bounds.width > lowestDelay.saturatingAdd(lowestDelay).saturatingAdd(max(0, slack))
    }

    /// When to send the next request.
    ///
    /// The request is aimed so that its midpoint — half the lowest round trip after sending — falls on
    /// the next whole second of the server's clock as predicted by the middle of the bounds, and at
    /// least `lead` from `now` so the caller can still make it.
    ///
    /// - Parameters:
    ///   - now: The current monotonic instant.
    ///   - lead: The least time between `now` and the send, in nanoseconds (scheduling headroom).
    /// - Returns: The monotonic instant to send at; `now + lead` before the first sample.
    /// - Complexity: O(1).
    package func nextSendTime(now: MonotonicInstant, lead: Int64 = 1_000_000) -> MonotonicInstant {
        let earliest = now.nanoseconds.saturatingAdd(max(0, lead))
        guard let bounds = bounds(at: now) else { return MonotonicInstant(nanoseconds: earliest) }
        let halfDelay = (lowestDelay ?? 0) / 2
        let estimate = bounds.midpoint
        // Server time at the earliest possible request midpoint, then the next whole second after it.
        let serverAtMidpoint = earliest.saturatingAdd(halfDelay).saturatingAdd(estimate)
        let boundary = serverAtMidpoint.flooredDivision(by: resolution).saturatingAdd(1).saturatingMultiply(resolution)
        let midpoint = boundary.saturatingSubtract(estimate)
        return MonotonicInstant(nanoseconds: max(earliest, midpoint.saturatingSubtract(halfDelay)))
    }
}
