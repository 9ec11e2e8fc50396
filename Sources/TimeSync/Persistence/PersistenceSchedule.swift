/// The debouncing of `PersistencePolicy`, sans I/O: the clock reports each change with its instant,
/// estimate and status, and writes when told.
package struct PersistenceSchedule: Sendable, Hashable {
    /// The policy followed.
    package let policy: PersistencePolicy
    /// When the last write was decided; `nil` before the first.
    package private(set) var lastWrite: MonotonicInstant?
    /// What the last write saved.
    package struct Written: Sendable, Hashable {
        /// The estimate of θ, in nanoseconds.
        package var estimate: Int64
        /// The clock's status.
        package var status: SynchronizationStatus
    }

    /// The estimate and status written last.
    package private(set) var written: Written?
    /// Whether a change waits for a deferred write.
    package private(set) var pending = false

    /// A schedule that has written nothing yet.
    package init(policy: PersistencePolicy) {
        self.policy = policy
    }

    /// Takes a change of the clock's state.
    /// - Parameters:
    ///   - now: When it changed.
    ///   - estimate: The estimate of θ now, in nanoseconds.
    ///   - status: The clock's status now.
    /// - Returns: Write now, or at an instant (the caller keeps one deferred write scheduled).
    package mutating func changed(at now: MonotonicInstant, estimate: Int64, status: SynchronizationStatus) -> PersistenceDecision {
        let significant: Bool
        if let written {
            significant = written.status != status
                || estimate.saturatingSubtract(written.estimate).magnitude > policy.significantChange.nanosecondsClamped.magnitude
        } else {
            significant = true
        }
        let due = lastWrite.map { $0.advanced(by: policy.minimumInterval) } ?? now
        if significant || now >= due {
            lastWrite = now
            written = Written(estimate: estimate, status: status)
            pending = false
            return .writeNow
        }
        pending = true
        return .writeAt(due)
    }

    /// The deferred write's instant came: whether to write (a change is pending), and records it.
    package mutating func deferredWriteDue(at now: MonotonicInstant, estimate: Int64, status: SynchronizationStatus) -> Bool {
        guard pending else { return false }
        pending = false
        lastWrite = now
        written = Written(estimate: estimate, status: status)
        return true
    }

    /// A write made outside the schedule (``ServerClock/flush()``).
    package mutating func flushed(at now: MonotonicInstant, estimate: Int64, status: SynchronizationStatus) {
        pending = false
        lastWrite = now
        written = Written(estimate: estimate, status: status)
    }
}
