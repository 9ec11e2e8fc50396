import TimeSync

/// Why a `DateRefinementPlan` cannot start.
public enum DateRefinementPlanError: CodedError, Hashable {
    /// No source to measure.
    case noSources
    /// The request budget does not cover one probe of each source.
    case budgetTooSmall(requests: Int, probes: Int)

    /// The error itself: each case is its own code.
    public var code: Self { self }

    public var description: String {
        switch self {
        case .noSources: "no sources"
        case .budgetTooSmall(let requests, let probes): "request budget too small for the probes: \(requests) < \(probes)"
        }
    }
}
