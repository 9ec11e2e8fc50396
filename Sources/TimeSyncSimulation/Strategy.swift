import TimeSync

/// The estimation strategies TimeSync offers.
package enum Strategy: Sendable, Hashable, CustomStringConvertible {
    /// Per-source interval intersection with drift correction, combined across sources by a
    /// Marzullo-style majority. The default, and the only one with honest bounds in every case.
    case intersection
    /// The latest sample wins (what most hand-rolled clients do).
    case latest
    /// The sample with the lowest delay ever seen wins.
    case lowestDelay
    /// An exponential moving average of sample midpoints with weight `alpha`
    /// for the newest sample.
    case ema(alpha: Double)
    /// Kronos-style, for comparison: the median across servers of each server's lowest-delay sample.
    case kronos
    /// timesync.js-style, for comparison: the mean of recent samples within one standard deviation.
    case timesyncJS
    /// Outcomes another implementation computed on the same stream, one per sample in order
    /// (``EstimatorStream``): how the simulator scores an estimator that runs outside Swift, such as
    /// the JavaScript client through Node.
    case replayed(name: String, outcomes: [EstimatorOutcome])

    /// TimeSync's strategy and the common simple ones, with the EMA at its default weight.
    package static let all: [Strategy] = [.intersection, .latest, .lowestDelay, .ema(alpha: EMAEstimator.defaultAlpha)]
    /// ``all`` plus the strategies of other libraries, for comparison.
    package static let comparison: [Strategy] = all + [.kronos, .timesyncJS]

    /// The name used by the CLI and its JSON: `default`, `latest`, `lowest-delay`, `ema`, `kronos`,
    /// `timesync-js`.
    package var name: String {
        switch self {
        case .intersection: "default"
        case .latest: "latest"
        case .lowestDelay: "lowest-delay"
        case .ema: "ema"
        case .kronos: "kronos"
        case .timesyncJS: "timesync-js"
        case .replayed(let name, _): name
        }
    }

    package var description: String { name }

    /// Parses a strategy name as printed by ``name``; `ema` takes `alpha`.
    package init?(name: String, alpha: Double = EMAEstimator.defaultAlpha) {
        switch name {
        case "default", "intersection": self = .intersection
        case "latest": self = .latest
        case "lowest-delay": self = .lowestDelay
        case "ema": self = .ema(alpha: alpha)
        case "kronos": self = .kronos
        case "timesync-js": self = .timesyncJS
        default: return nil
        }
    }

    /// A fresh estimator of this strategy.
    package func makeEstimator(_ configuration: EstimatorConfiguration = .init()) -> any OffsetEstimator {
        switch self {
        case .intersection: IntersectionEstimator(configuration)
        case .latest: LatestEstimator(configuration)
        case .lowestDelay: LowestDelayEstimator(configuration)
        case .ema(let alpha): EMAEstimator(configuration, alpha: alpha)
        case .kronos: KronosEstimator(configuration)
        case .timesyncJS: TimesyncJSEstimator(configuration)
        case .replayed(_, let outcomes): ReplayedEstimator(configuration, outcomes: outcomes)
        }
    }
}

extension ServerClock {
    /// A clock that estimates with one of the compared strategies (the core's default is
    /// ``Strategy/intersection``).
    package convenience init(
        timeBase: any TimeBase, strategy: Strategy, configuration: Configuration = .init(),
        store: (any CalibrationStore)? = nil, onWarning: (@Sendable (String) -> Void)? = nil
    ) {
        self.init(
            timeBase: timeBase, estimator: strategy.makeEstimator(configuration.estimator), configuration: configuration,
            store: store, onWarning: onWarning)
    }
}
