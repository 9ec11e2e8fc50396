/// What to do about the store after a change.
package enum PersistenceDecision: Sendable, Hashable {
    /// Write the current state now.
    case writeNow
    /// Write at this instant (a write is already due then, or should be scheduled for then).
    case writeAt(MonotonicInstant)
}
