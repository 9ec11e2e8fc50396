import TimeSync
import TimeSyncHTTP

/// Calibrates against servers you don't control (a public HTTPS site, a CDN) from their `Date` header
/// alone, with sub-second refinement.
///
/// 1. Probe: every source gets one request (two when there are several sources, the first of which
///    opens the connection); the source with the lowest delay wins, since a `Date` sample can never
///    be tighter than its round trip.
/// 2. Refine: ``DateRefinement`` times each further request so the server's second boundary falls in
///    its middle; each one halves the bounds until they approach the round-trip time, the request
///    budget is spent or the bounds are below ``targetWidth``.
///
/// The reported bounds are the intersection of the chosen source's samples carried with the local
/// clock's worst-case drift: honest whatever the network did. Other sources are not mixed in: their
/// slower samples add nothing and a misconfigured one would only be trusted blindly.
public struct HTTPDateCalibrator: Sendable {
    /// The candidate servers (their policy is ignored: only `Date` is used).
    public var sources: [HTTPTimeSource]
    /// The most requests to send, probes included.
    public var maxRequests: Int
    /// Stop once the bounds are this narrow (plus twice the round trip, which no timing can beat).
    public var targetWidth: Duration
    /// Headroom between planning a request and sending it.
    public var lead: Duration = .milliseconds(2)
    /// The local monotonic clock's worst-case frequency error.
    public var maxDrift: Double = 100e-6

    /// Creates a calibrator.
    /// - Parameters:
    ///   - sources: The candidate servers, at least one; the lowest-latency one is used.
    ///   - maxRequests: The request budget, probes included.
    ///   - targetWidth: Bounds width (beyond twice the round trip) at which to stop early.
    public init(sources: [HTTPTimeSource], maxRequests: Int = 10, targetWidth: Duration = .milliseconds(1)) {
        self.sources = sources
        self.maxRequests = maxRequests
        self.targetWidth = targetWidth
    }

    /// Runs the probes and the refinement.
    /// - Returns: The chosen server's samples and bounds.
    /// - Throws: ``HTTPTimeError/invalidArgument`` without sources or with a budget too small for the
    ///   probes; the last rejection or transport error when no probe succeeded (a failed request
    ///   later only counts as rejected);
    ///   ``HTTPTimeError/inconsistentSamples`` when the chosen server contradicts itself; transport
    ///   errors; `CancellationError`.
    public func run() async throws -> HTTPTimeMeasurement {
        try await run(seed: nil, requestsUsed: 0)
    }

    /// Runs with a sample already taken (by ``HTTPTimeSource/measure(samples:)``'s first request).
    func run(seed: (index: Int, sample: OffsetSample)?, requestsUsed: Int) async throws -> HTTPTimeMeasurement {
        guard !sources.isEmpty else { throw HTTPTimeError.invalidArgument.withDetail("no sources") }
        let probesPerSource = sources.count > 1 ? 2 : 1
        guard maxRequests >= requestsUsed + (seed == nil ? sources.count * probesPerSource : 0) else {
            throw HTTPTimeError.invalidArgument.withDetail("request budget too small for the probes")
        }
        var requests = requestsUsed
        var rejected = 0
        var lastError: any Error = HTTPTimeError.noUsableSamples
        var probes: [[OffsetSample]] = Array(repeating: [], count: sources.count)
        if let seed {
            probes[seed.index].append(seed.sample)
        } else {
            for (index, source) in sources.enumerated() {
                for _ in 0..<probesPerSource {
                    requests += 1
                    switch try await source.attempt(policy: .dateOnly) {
                    case .success(let observation): probes[index].append(observation.sample)
                    case .failure(let error):
                        rejected += 1
                        lastError = error
                    }
                }
            }
        }
        guard let chosen = Self.lowestLatency(probes) else { throw lastError }
        let source = sources[chosen]
        var refinement = DateRefinement(resolution: HTTPDate.resolution, maxDrift: maxDrift)
        for sample in probes[chosen] {
            do { try refinement.add(sample) } catch { throw HTTPTimeError.inconsistentSamples }
        }
        let slack = targetWidth.nanosecondsClamped
        while requests < maxRequests, refinement.canImprove(slack: slack) {
            let now = source.timeBase.monotonicNow()
            try await source.timeBase.sleep(until: refinement.nextSendTime(now: now, lead: lead.nanosecondsClamped))
            requests += 1
            switch try await source.attempt(policy: .dateOnly) {
            case .success(let observation):
                do { try refinement.add(observation.sample) } catch { throw HTTPTimeError.inconsistentSamples }
            case .failure:
                rejected += 1
            }
        }
        return try HTTPTimeMeasurement(
            source: source.source, method: .date, samples: refinement.samples, requests: requests, rejected: rejected,
            configuration: EstimatorConfiguration(maxDrift: maxDrift))
    }

    /// The index of the source whose best sample has the lowest delay, or `nil` when none has one.
    /// - Parameter samples: Each source's samples.
    /// - Complexity: O(n) in the number of samples.
    public static func lowestLatency(_ samples: [[OffsetSample]]) -> Int? {
        samples.indices
            .compactMap { index in samples[index].map(\.delay).min().map { (index, $0) } }
            .min { $0.1 < $1.1 }?.0
    }
}
