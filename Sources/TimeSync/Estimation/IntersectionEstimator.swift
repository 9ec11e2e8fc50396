/// The default strategy: hard-bound intersection per source, measured drift, and a majority vote
/// across sources.
///
/// Per source, up to `EstimatorConfiguration.windowSize` samples are kept: the newest, and among the
/// older ones the tightest, so the window spans long enough to measure the rate. From every pair of
/// them the local clock's rate is bounded (θ cannot have moved faster than the two intervals allow),
/// those bounds are widened by `EstimatorConfiguration.rateWander` and intersected with the prior
/// ±`EstimatorConfiguration.maxDrift`. Each sample, carried to the newest sample's instant with that
/// rate, still bounds θ; intersecting them keeps the tightest edges — the lowest-delay samples in each
/// direction — so a delay spike only loosens its own interval and never pulls the estimate.
/// A step needs confirmation: a new sample that contradicts the source's window is held as a suspect
/// and changes nothing, until a suspect from a later, separate measurement agrees with it (the server
/// really stepped its clock: the window is replaced by the agreeing suspects) or a sample that agrees
/// with the window refutes it. The samples of one measurement (``add(contentsOf:history:)``) count
/// as one vote: a server wrong for one exchange series cannot confirm itself. A new sample that contradicts only older samples while more of the window agrees with it than
/// against it is taken, and the contradicted older samples are dropped. One outlier never wins.
///
/// Across sources, Marzullo's algorithm finds the offset region most sources agree on; sources outside
/// it are falsetickers. Authenticated sources (`EstimatorConfiguration.authenticatedSources`:
/// Roughtime, NTS) bound the vote: a source outside the region they agree on is a falseticker
/// whatever the count. Fewer than a strict majority agreeing gives `EstimatorOutcome.noMajority(sources:largestAgreeing:)`:
/// no time is better than a wrong one.
package struct IntersectionEstimator: OffsetEstimator {
    /// `intersection`.
    package var name: String { "intersection" }

    /// The per-source fit at the source's newest sample.
    struct SourceFit: Sendable, Hashable {
        var source: String
        var time: MonotonicInstant
        /// Bounds on θ that hold while the server slews within the allowance.
        var bounds: OffsetInterval
        /// The intersection for a steady server rate, inside ``bounds``: where the estimate lies.
        var core: OffsetInterval
        var rate: RateInterval
    }

    /// What the estimator keeps of one source: its window, the fit at its newest sample, and the
    /// samples that contradict the window and wait for confirmation (oldest first).
    struct SourceRecord: Sendable, Hashable {
        var window: [OffsetSample]
        var fit: SourceFit
        var suspects: [Suspect] = []
    }

    /// A held sample and the measurement it came in.
    struct Suspect: Sendable, Hashable {
        var sample: OffsetSample
        var measurement: UInt64
    }

    /// The drift bound, window size and source timeout it works with.
    package let configuration: EstimatorConfiguration
    private var records: [String: SourceRecord] = [:]
    /// The number of the measurement being added: each ``add(_:)`` is one, each
    /// ``add(contentsOf:history:)`` one for all its samples.
    private var measurement: UInt64 = 0

    /// Creates an empty estimator.
    package init(_ configuration: EstimatorConfiguration = .init()) {
        self.configuration = configuration
    }

    package var samples: [OffsetSample] {
        records.keys.sorted().flatMap { records[$0]!.window }
    }

    /// The sources the estimator currently follows.
    package var sources: [String] { records.keys.sorted() }

    package mutating func add(_ sample: OffsetSample) -> EstimatorOutcome {
        measurement &+= 1
        insert(sample)
        expireLostSources()
        return outcome()
    }

    /// Takes a measurement's samples in order, each into its source's window as ``add(_:)`` would,
    /// then each answering source's `history` (taken only where it agrees with the fresh samples),
    /// then votes once.
    package mutating func add(contentsOf samples: [OffsetSample], history: [OffsetSample]) -> EstimatorOutcome? {
        guard !samples.isEmpty else { return nil }
        measurement &+= 1
        for sample in samples { insert(sample) }
        if !history.isEmpty {
            let answered = Set(samples.map(\.source))
            for (source, older) in Dictionary(grouping: history, by: \.source) where answered.contains(source) {
                mergeHistory(older, into: source)
            }
        }
        expireLostSources()
        return outcome()
    }

    /// Puts a sample into its source's window, or holds it as a suspect.
    private mutating func insert(_ sample: OffsetSample) {
        var candidate = records[sample.source]?.window ?? []
        // Keep the window sorted by time; a sample older than the whole window is still useful.
        let index = candidate.firstIndex { $0.time > sample.time } ?? candidate.endIndex
        candidate.insert(sample, at: index)
        while candidate.count > configuration.windowSize {
            candidate.remove(at: Self.leastUseful(candidate))
        }
        let kept = candidate.count
        let fit = Self.fit(&candidate, configuration)
        let dropped = kept - candidate.count
        // Taken when it contradicts nothing, or when it is the newest and more of the window's
        // remaining samples agree with it than it contradicts.
        let agreeing = candidate.count - 1
        if dropped == 0 || (candidate.last == sample && agreeing > dropped) {
            records[sample.source] = SourceRecord(window: candidate, fit: fit)
        } else {
            hold(sample)
        }
    }

    /// Replays saved samples into an empty estimator: each source's samples are sorted, trimmed to the
    /// window and fitted once, then the sources are combined once.
    /// - Complexity: O(n log n) for n samples, plus the per-source fits (quadratic in the window size,
    ///   a constant).
    package mutating func restore(_ samples: [OffsetSample]) -> EstimatorOutcome {
        var bySource: [String: [OffsetSample]] = [:]
        for sample in samples { bySource[sample.source, default: []].append(sample) }
        for (source, unsorted) in bySource {
            var window = unsorted.sorted { $0.time < $1.time }
            if window.count > configuration.windowSize { window.removeFirst(window.count - configuration.windowSize) }
            let fit = Self.fit(&window, configuration)
            records[source] = SourceRecord(window: window, fit: fit)
        }
        expireLostSources()
        return outcome()
    }

    /// Takes older samples of a source that has answered afresh, when they agree with its current
    /// window: the combined window is fitted once, and the history is kept only if every current
    /// sample survives (the history's contradicting older part is dropped, as for any step). A
    /// history that contradicts the present is refused whole.
    private mutating func mergeHistory(_ samples: [OffsetSample], into source: String) {
        guard let window = records[source]?.window, let first = window.first else { return }
        var history = samples.filter { $0.time < first.time }.sorted { $0.time < $1.time }
        let room = max(0, configuration.windowSize - window.count)
        guard !history.isEmpty, room > 0 else { return }
        if history.count > room { history.removeFirst(history.count - room) }
        var candidate = history + window
        let fit = Self.fit(&candidate, configuration)
        guard candidate.count > window.count else { return }  // the history contradicted the present
        records[source]?.window = candidate
        records[source]?.fit = fit
    }

    /// Holds a contradicting sample; when suspects of at least two measurements agree with it, the
    /// source stepped: its window becomes the agreeing suspects.
    private mutating func hold(_ sample: OffsetSample) {
        guard var record = records[sample.source] else { return }
        var held = record.suspects
        let index = held.firstIndex { $0.sample.time > sample.time } ?? held.endIndex
        held.insert(Suspect(sample: sample, measurement: measurement), at: index)
        if held.count > configuration.windowSize { held.removeFirst(held.count - configuration.windowSize) }
        var confirmed = held.map(\.sample)
        let fit = Self.fit(&confirmed, configuration)
        // The fit keeps a suffix of the held samples (it drops the oldest that disagree).
        let measurements = Set(held.suffix(confirmed.count).map(\.measurement))
        if confirmed.count >= 2, confirmed.contains(sample), measurements.count >= 2 {
            record = SourceRecord(window: confirmed, fit: fit)
        } else {
            record.suspects = held
        }
        records[sample.source] = record
    }

    /// The samples of each source held as suspects (contradicting the source's window, unconfirmed).
    package var suspectSamples: [OffsetSample] {
        records.keys.sorted().flatMap { records[$0]!.suspects.map(\.sample) }
    }

    package mutating func removeSource(_ source: String) -> EstimatorOutcome {
        records[source] = nil
        return outcome()
    }

    /// Sources whose newest sample fell more than the timeout behind the newest of all.
    package func lostSources() -> [String] {
        guard let newest = records.values.map(\.fit.time).max() else { return [] }
        let timeout = configuration.sourceTimeout.nanosecondsClamped
        return records.values.map(\.fit).filter { newest.nanoseconds.saturatingSubtract($0.time.nanoseconds) > timeout }.map(\.source).sorted()
    }

    private mutating func expireLostSources() {
        for source in lostSources() { records[source] = nil }
    }

    /// Combines the per-source fits by majority.
    ///
    /// Sources are selected on their bounds with the slew allowance (a source is a truechimer when
    /// its honest interval holds the majority's region); the estimate is the middle of the members'
    /// steady intersections, which a slew-free world pins down more tightly.
    func outcome() -> EstimatorOutcome {
        let all = records.values.map(\.fit).sorted { $0.source < $1.source }
        guard let time = all.map(\.time).max() else { return .noSamples }
        let slew = configuration.slewAllowance
        let intervals = all.map {
            let elapsed = time.nanoseconds.saturatingSubtract($0.time.nanoseconds)
            return $0.rate.age($0.bounds, by: Double(elapsed)).widened(by: slew.widening(over: elapsed))
        }
        guard let (candidates, bounded) = authenticatedFloor(all, intervals) else {
            // The signed sources contradict each other: no time until most of them agree again.
            let authenticated = all.indices.filter { configuration.authenticatedSources.contains(all[$0].source) }.map { intervals[$0] }
            return .noMajority(sources: authenticated.count, largestAgreeing: Marzullo.select(authenticated)?.count ?? 0)
        }
        guard let selection = Marzullo.select(bounded) else { return .noSamples }
        guard selection.count * 2 > candidates.count else {
            return .noMajority(sources: all.count, largestAgreeing: selection.count)
        }
        let members = selection.members.map { all[candidates[$0]] }
        var rate = members[0].rate
        var hull = members[0].rate
        var core: OffsetInterval? = selection.region
        for member in members {
            hull = RateInterval(lower: min(hull.lower, member.rate.lower), upper: max(hull.upper, member.rate.upper))
            rate = rate.intersection(member.rate) ?? hull
            core = core?.intersection(member.rate.age(member.core, by: Double(time.nanoseconds.saturatingSubtract(member.time.nanoseconds))))
        }
        let meanRate = members.map(\.rate.estimate).reduce(0, +) / Double(members.count)
        rate = RateInterval(lower: rate.lower, upper: rate.upper, estimate: meanRate)
        let calibration = Calibration(
            time: time, offset: selection.region, estimate: (core ?? selection.region).midpoint, rate: rate,
            sources: members.map(\.source), slew: slew)
        // A selected source whose newest sample contradicts its window: the fit may be stale.
        if members.contains(where: { !(records[$0.source]?.suspects ?? []).isEmpty }) { return .contradicted(calibration) }
        return .calibrated(calibration)
    }

    /// The authenticated floor: when sources of `EstimatorConfiguration.authenticatedSources` are
    /// heard, the region most of them agree on bounds every other source. A source outside it is a
    /// falseticker and does not vote; the others vote with their intervals cut to it, so no majority
    /// of unauthenticated sources can place the time outside what the signed sources allow.
    /// - Returns: The indices of the sources that vote and their intervals; everyone, unchanged, when
    ///   no authenticated source is heard; `nil` when the authenticated sources have no majority.
    private func authenticatedFloor(_ all: [SourceFit], _ intervals: [OffsetInterval]) -> (candidates: [Int], intervals: [OffsetInterval])? {
        let authenticated = all.indices.filter { configuration.authenticatedSources.contains(all[$0].source) }
        guard !authenticated.isEmpty else { return (Array(all.indices), intervals) }
        guard let floor = Marzullo.select(authenticated.map { intervals[$0] }), floor.count * 2 > authenticated.count else { return nil }
        var candidates: [Int] = []
        var bounded: [OffsetInterval] = []
        for index in all.indices {
            guard let inside = intervals[index].intersection(floor.region) else { continue }
            candidates.append(index)
            bounded.append(inside)
        }
        return (candidates, bounded)
    }
}
