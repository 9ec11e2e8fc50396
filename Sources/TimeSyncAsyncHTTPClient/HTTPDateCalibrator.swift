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

    /// Runs the probes and the refinement (an `HTTPMeasurement` on `Date` only, over every source).
    /// - Returns: The chosen server's samples and bounds.
    /// - Throws: `HTTPTimeError.invalidArgument` without sources or with a budget too small for the
    ///   probes; `HTTPTimeError.retryLater` as soon as a server answers `429` or `503`; the last
    ///   rejection or transport error when no probe succeeded (a failed request later only counts as
    ///   rejected); `HTTPTimeError.inconsistentSamples` when the chosen server contradicts itself;
    ///   `CancellationError`.
    package func run() async throws -> HTTPTimeMeasurement {
        guard let longest = sources.map(\.timeout).max() else { throw HTTPTimeError.invalidArgument.withDetail("no source to measure") }
        var configuration = HTTPMeasurement.Configuration(
            sources: sources.map(\.source), samples: maxRequests, preference: .dateOnly, warmUp: false, dateRequests: maxRequests,
            requestTimeout: longest)
        configuration.targetWidth = targetWidth
        configuration.lead = lead
        configuration.maxDrift = maxDrift
        var measurement = try HTTPMeasurement(configuration, deadline: sources.compactMap(\.measurementDeadline).min())
        let taken = try await HTTPTimeSource.run(&measurement, on: sources)
        return try HTTPTimeMeasurement(
            source: sources[taken.source].source, scheme: .date, samples: taken.samples, requests: taken.requests,
            rejected: taken.rejected, configuration: EstimatorConfiguration(maxDrift: maxDrift))
    }
}
#endif
