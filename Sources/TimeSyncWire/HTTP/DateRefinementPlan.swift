import TimeSync

/// Measuring servers you do not control from their one-second `Date` header, sans I/O: which server
/// to ask, and when, so the bounds shrink well below a second.
///
/// 1. Probe: every source gets one request (two when there are several, the first of which opens the
///    connection); the source whose best sample has the lowest delay wins, since a `Date` sample can
///    never be tighter than its round trip.
/// 2. Refine: `DateRefinement` times each further request so the server's second boundary falls in
///    its middle; each halves the bounds until they approach the round trip, the budget is spent or
///    the bounds are within `targetWidth` of what timing can reach.
///
/// The transport executes ``nextAction(at:)``'s actions and reports each outcome; the plan never
/// reads a clock or sleeps, so tests drive it with chosen instants.
package struct DateRefinementPlan: Sendable, Hashable {
    /// How many sources are planned for.
    package let sourceCount: Int
    /// The most requests to send, probes included.
    package let maxRequests: Int
    /// Stop once the bounds are this much (in nanoseconds) above twice the lowest round trip.
    package let slack: Int64
    /// Least time, in nanoseconds, between planning a request and sending it.
    package let lead: Int64
    /// Requests asked for so far.
    package private(set) var requests: Int
    /// Requests that failed or whose response was rejected.
    package private(set) var rejected = 0
    /// The source being refined, once the probes are done; `nil` before, or when no probe succeeded.
    package private(set) var chosenSource: Int?
    private var probesLeft: [Int]
    private var refinements: [DateRefinement]
    private var awaiting: Int?

    /// Plans a refinement.
    /// - Parameters:
    ///   - sourceCount: How many candidate sources.
    ///   - maxRequests: The request budget, probes included.
    ///   - targetWidth: Bounds width beyond twice the round trip at which to stop early.
    ///   - lead: Headroom between planning a request and sending it.
    ///   - maxDrift: The local monotonic clock's worst-case frequency error.
    ///   - requestsUsed: Requests already sent toward this measurement (they count in the budget).
    ///   - seed: A `Date` sample already taken from one source (its probe); the plan then refines
    ///     that source without probing.
    /// - Throws: ``DateRefinementPlanError``.
    package init(
        sourceCount: Int, maxRequests: Int, targetWidth: Duration = .milliseconds(1), lead: Duration = .milliseconds(2),
        maxDrift: Double = 100e-6, requestsUsed: Int = 0, seed: (source: Int, sample: OffsetSample)? = nil
    ) throws(DateRefinementPlanError) {
        guard sourceCount > 0 else { throw .noSources }
        let probesPerSource = sourceCount > 1 ? 2 : 1
        let probes = seed == nil ? sourceCount * probesPerSource : 0
        guard maxRequests >= max(0, requestsUsed) + probes else {
            throw .budgetTooSmall(requests: maxRequests, probes: max(0, requestsUsed) + probes)
        }
        self.sourceCount = sourceCount
        self.maxRequests = maxRequests
        slack = max(0, targetWidth.nanosecondsClamped)
        self.lead = max(0, lead.nanosecondsClamped)
        refinements = Array(repeating: DateRefinement(resolution: HTTPDate.resolution, maxDrift: maxDrift), count: sourceCount)
        requests = max(0, requestsUsed)
        if let seed, refinements.indices.contains(seed.source), (try? refinements[seed.source].add(seed.sample)) != nil {
            probesLeft = []
            chosenSource = seed.source
        } else {
            probesLeft = (0..<sourceCount).flatMap { Array(repeating: $0, count: probesPerSource) }
        }
    }

    /// The chosen source's samples, oldest first (empty before the choice).
    package var samples: [OffsetSample] { chosenSource.map { refinements[$0].samples } ?? [] }

    /// The chosen source's refinement: its bounds and lowest round trip.
    package var refinement: DateRefinement? { chosenSource.map { refinements[$0] } }

    /// What to do at `now`.
    package mutating func nextAction(at now: MonotonicInstant) -> DateRefinementAction {
        if let awaiting {
            // Asked again without an outcome: the request is lost.
            handleFailure(from: awaiting)
        }
        guard requests < maxRequests else {
            chooseIfProbed()
            return .finish
        }
        if let source = probesLeft.first {
            probesLeft.removeFirst()
            return send(source, at: now)
        }
        chooseIfProbed()
        guard let chosen = chosenSource, refinements[chosen].canImprove(slack: slack) else { return .finish }
        return send(chosen, at: refinements[chosen].nextSendTime(now: now, lead: lead))
    }

    /// Takes the sample a request to `source` gave.
    /// - Throws: `SampleError.emptyInterval` when it contradicts that source's earlier samples (a
    ///   cached or replayed response, or a stepped clock); the plan is unchanged but for the count.
    package mutating func handle(_ sample: OffsetSample, from source: Int) throws(SampleError) {
        guard awaiting == source else { return }
        awaiting = nil
        do {
            try refinements[source].add(sample)
        } catch {
            rejected += 1
            throw error
        }
    }

    /// Takes the failure of a request to `source` (a transport error, a rejected response).
    package mutating func handleFailure(from source: Int) {
        guard awaiting == source else { return }
        awaiting = nil
        rejected += 1
    }

    private mutating func send(_ source: Int, at instant: MonotonicInstant) -> DateRefinementAction {
        requests += 1
        awaiting = source
        return .send(source: source, at: instant)
    }

    /// After the probes: the source whose best sample has the lowest delay.
    private mutating func chooseIfProbed() {
        guard chosenSource == nil, probesLeft.isEmpty else { return }
        chosenSource = refinements.indices
            .compactMap { index in refinements[index].lowestDelay.map { (index, $0) } }
            .min { $0.1 < $1.1 }?.0
    }
}
