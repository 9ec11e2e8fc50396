import TimeSync

/// What a `DateRefinementPlan` asks its transport to do next.
package enum DateRefinementAction: Sendable, Hashable {
    /// Send a request to source `source` (an index into the sources planned for) at `at` — sleep
    /// until then if it is later than now — and report the sample it gives with
    /// `DateRefinementPlan.handle(_:from:)` or its failure with `DateRefinementPlan.handleFailure(from:)`.
    case send(source: Int, at: MonotonicInstant)
    /// The refinement is over: read `DateRefinementPlan.chosenSource` and
    /// `DateRefinementPlan.samples`.
    case finish
}
