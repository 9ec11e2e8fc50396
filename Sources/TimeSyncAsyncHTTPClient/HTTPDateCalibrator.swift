#if AsyncHTTPClient
import TimeSync
import TimeSyncWire
import TimeSyncHTTP

/// Calibrates against servers you don't control (a package HTTPS site, a CDN) from their `Date` header
/// alone, with sub-second refinement.
///
/// It executes the core's `DateRefinementPlan`: probe every source, keep the one with the lowest
/// round trip, then time each further request so the server's second boundary falls in its middle.
///
/// The reported bounds are the intersection of the chosen source's samples carried with the local
/// clock's worst-case drift: honest whatever the network did. Other sources are not mixed in: their
/// slower samples add nothing and a misconfigured one would only be trusted blindly.
package struct HTTPDateCalibrator: Sendable {
    /// The candidate servers (their policy is ignored: only `Date` is used).
    package var sources: [HTTPTimeSource]
    /// The most requests to send, probes included.
    package var maxRequests: Int
    /// Stop once the bounds are this narrow (plus twice the round trip, which no timing can beat).
    package var targetWidth: Duration
    /// Headroom between planning a request and sending it.
    package var lead: Duration = .milliseconds(2)
    /// The local monotonic clock's worst-case frequency error.
    package var maxDrift: Double = 100e-6

    /// Creates a calibrator.
    /// - Parameters:
    ///   - sources: The candidate servers, at least one; the lowest-latency one is used.
    ///   - maxRequests: The request budget, probes included.
    ///   - targetWidth: Bounds width (beyond twice the round trip) at which to stop early.
    package init(sources: [HTTPTimeSource], maxRequests: Int = 10, targetWidth: Duration = .milliseconds(1)) {
        self.sources = sources
        self.maxRequests = maxRequests
        self.targetWidth = targetWidth
    }

    /// Runs the probes and the refinement.
    /// - Returns: The chosen server's samples and bounds.
    /// - Throws: `HTTPTimeError.invalidArgument` without sources or with a budget too small for the
    ///   probes; `HTTPTimeError.retryLater` as soon as a server answers `429` or `503`; the last rejection or transport error when no probe succeeded (a failed request
    ///   later only counts as rejected);
    ///   `HTTPTimeError.inconsistentSamples` when the chosen server contradicts itself; transport
    ///   errors; `CancellationError`.
    package func run() async throws -> HTTPTimeMeasurement {
        try await run(seed: nil, requestsUsed: 0)
    }

    /// Runs with a sample already taken (by `HTTPTimeSource.measure(samples:)`'s first request).
    func run(seed: (index: Int, sample: OffsetSample)?, requestsUsed: Int) async throws -> HTTPTimeMeasurement {
        let (plan, chosen) = try await refine(seed: seed, requestsUsed: requestsUsed)
        return try HTTPTimeMeasurement(
            source: sources[chosen].source, scheme: .date, samples: plan.samples, requests: plan.requests,
            rejected: plan.rejected, configuration: EstimatorConfiguration(maxDrift: maxDrift))
    }

    /// Executes a `DateRefinementPlan`'s actions until it finishes.
    /// - Returns: The finished plan (its samples are the chosen source's) and the chosen source.
    func refine(seed: (index: Int, sample: OffsetSample)?, requestsUsed: Int) async throws -> (plan: DateRefinementPlan, chosen: Int) {
        var plan: DateRefinementPlan
        do {
            plan = try DateRefinementPlan(
                sourceCount: sources.count, maxRequests: maxRequests, targetWidth: targetWidth, lead: lead,
                maxDrift: maxDrift, requestsUsed: requestsUsed, seed: seed.map { ($0.index, $0.sample) })
        } catch {
            throw HTTPTimeError.invalidArgument.withDetail(error.description)
        }
        let timeBase = sources[0].timeBase
        var lastError: any Error = HTTPTimeError.noUsableSamples
        while true {
            switch plan.nextAction(at: timeBase.monotonicNow()) {
            case .send(let index, let instant):
                if let deadline = sources[index].measurementDeadline, instant >= deadline {
                    // No time left for another request in the measurement: what the plan has is the answer.
                    guard let chosen = plan.chosenSource else { throw lastError }
                    return (plan, chosen)
                }
                if instant > timeBase.monotonicNow() { try await timeBase.sleep(until: instant) }
                switch try await sources[index].attempt(policy: .dateOnly) {
                case .success(let observation):
                    do { try plan.handle(observation.sample, from: index) } catch { throw HTTPTimeError.inconsistentSamples }
                case .failure(let error):
                    // A server that asks for fewer requests gets none more from this run.
                    if let error = error as? HTTPTimeError, error.code == .retryLater { throw error }
                    plan.handleFailure(from: index)
                    lastError = error
                }
            case .finish:
                guard let chosen = plan.chosenSource else { throw lastError }
                return (plan, chosen)
            }
        }
    }
}
#endif
