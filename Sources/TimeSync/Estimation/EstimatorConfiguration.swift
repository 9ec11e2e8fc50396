/// Settings shared by the estimators.
package struct EstimatorConfiguration: Sendable, Hashable, Codable {
    /// The largest frequency error the local monotonic clock may have, dimensionless (at most 1 %). Bounds widen at
    /// this rate until the rate itself is measured. Default 100 ppm (1e-4), the usual bound for a
    /// quartz oscillator over temperature (and NTP's `PHI` is 15 ppm for a disciplined clock).
    package var maxDrift: Double = 100e-6 {
        didSet { maxDrift = Self.capped(maxDrift, otherwise: 100e-6) }
    }
    /// How much the local clock's rate may wander from its measured value (temperature, ageing),
    /// added to measured rate bounds on both sides. Default 2 ppm.
    package var rateWander: Double = 2e-6 {
        didSet { rateWander = Self.capped(rateWander, otherwise: 2e-6) }
    }
    /// How fast a server's own clock may be slewed by its time daemon, dimensionless (at most 1 %).
    /// Bounds widen at this rate, up to ``serverSlewLimit`` in all, on top of the measured rate: they
    /// hold while a server corrects its clock, which no sample can show before it happens. Default
    /// 500 ppm, ntpd's largest slew rate. 0 gives bounds that assume a steady server, as NTP's error
    /// bounds do: tighter between samples, but a slewing server then moves outside them until its
    /// samples contradict the earlier ones (`EstimatorOutcome.contradicted(_:)`).
    package var serverSlew: Double = 500e-6 {
        didSet { serverSlew = Self.capped(serverSlew, otherwise: 500e-6) }
    }
    /// The largest correction a server's time daemon slews rather than steps: the most
    /// ``serverSlew`` ever adds to a bound. Default 128 ms (ntpd steps larger corrections); at most
    /// one second.
    package var serverSlewLimit: Duration = .milliseconds(128)
    /// ``serverSlew`` and ``serverSlewLimit`` together, as the estimators apply them.
    package var slewAllowance: SlewAllowance {
        SlewAllowance(rate: serverSlew, limit: serverSlewLimit.nanosecondsClamped)
    }
    /// How many samples of each source the default strategy keeps. Default 64.
    package var windowSize: Int = 64 {
        didSet { windowSize = max(1, windowSize) }
    }
    /// A source whose newest sample is this much older than the newest sample of any source is
    /// dropped as lost. Default one hour.
    package var sourceTimeout: Duration = .seconds(3600)

    /// The sources whose replies are signed (Roughtime, NTS): together they bound what the others
    /// may claim. A source whose interval lies outside the region the authenticated sources agree on
    /// is a falseticker however many sources vote with it; with none named, every source is one vote.
    /// A ``TimeSynchronizer`` fills this from its sources' `SourceDriver.isAuthenticated`.
    package var authenticatedSources: Set<String> = []

    /// Creates a configuration.
    package init(
        maxDrift: Double = 100e-6, rateWander: Double = 2e-6, windowSize: Int = 64, sourceTimeout: Duration = .seconds(3600),
        serverSlew: Double = 500e-6, serverSlewLimit: Duration = .milliseconds(128), authenticatedSources: Set<String> = []
    ) {
        self.authenticatedSources = authenticatedSources
        self.maxDrift = Self.capped(maxDrift, otherwise: 100e-6)
        self.rateWander = Self.capped(rateWander, otherwise: 2e-6)
        self.serverSlew = Self.capped(serverSlew, otherwise: 500e-6)
        self.serverSlewLimit = serverSlewLimit
        self.windowSize = max(1, windowSize)
        self.sourceTimeout = sourceTimeout
    }

    /// The cap on ``maxDrift`` and ``rateWander``: 1 %.
    package static let driftLimit = Double.driftLimit

    /// A drift or wander as set: its magnitude up to ``driftLimit``, `fallback` when not finite. A
    /// clock off by more than 1 % is broken, not drifting; the cap also keeps rate × elapsed
    /// arithmetic far inside Int64. (Property observers do not run in an initializer: both use this.)
    private static func capped(_ value: Double, otherwise fallback: Double) -> Double {
        value.isFinite ? min(abs(value), driftLimit) : fallback
    }

    /// Decodes a configuration through the same caps as ``init(maxDrift:rateWander:windowSize:sourceTimeout:serverSlew:serverSlewLimit:authenticatedSources:)``.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            maxDrift: try container.decode(Double.self, forKey: .maxDrift),
            rateWander: try container.decode(Double.self, forKey: .rateWander),
            windowSize: min(4096, try container.decode(Int.self, forKey: .windowSize)),
            sourceTimeout: try container.decode(Duration.self, forKey: .sourceTimeout),
            serverSlew: try container.decodeIfPresent(Double.self, forKey: .serverSlew) ?? 500e-6,
            serverSlewLimit: try container.decodeIfPresent(Duration.self, forKey: .serverSlewLimit) ?? .milliseconds(128),
            authenticatedSources: try container.decodeIfPresent(Set<String>.self, forKey: .authenticatedSources) ?? [])
    }

    /// The prior on the rate: ±``maxDrift``.
    package var ratePrior: RateInterval { .symmetric(maxDrift) }
}
