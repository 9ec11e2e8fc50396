/// When a ``ServerClock`` writes its store: rarely, so that a calibration costs nothing per sample.
///
/// The first calibration is written at once, and so is a significant change (the status changed, or
/// the estimate moved more than ``significantChange``); anything else waits until
/// ``minimumInterval`` has passed since the last write, and then the newest state is written once.
/// Writes run in a background task; ``ServerClock/flush()`` writes at once (call it when the app goes
/// to the background or stops).
public struct PersistencePolicy: Sendable, Hashable {
    /// At most one routine write per this interval. Default 60 s.
    public var minimumInterval: Duration
    /// An estimate that moved more than this since the last write is written at once. Default 10 ms.
    public var significantChange: Duration
    /// Whether writes due at a calibration run in a background task (the default) or on the
    /// calibrating thread (a command-line tool that must not exit before its write, a fuzz harness).
    public var writesInBackground: Bool

    /// Creates a policy.
    public init(minimumInterval: Duration = .seconds(60), significantChange: Duration = .milliseconds(10), writesInBackground: Bool = true) {
        self.minimumInterval = max(.zero, minimumInterval)
        self.significantChange = max(.zero, significantChange)
        self.writesInBackground = writesInBackground
    }

    /// Every calibration written at once (in the background).
    public static let everyCalibration = PersistencePolicy(minimumInterval: .zero, significantChange: .zero)
}

/// What to do about the store after a change.
public enum PersistenceDecision: Sendable, Hashable {
    /// Write the current state now.
    case writeNow
    /// Write at this instant (a write is already due then, or should be scheduled for then).
    case writeAt(MonotonicInstant)
}

/// The debouncing of ``PersistencePolicy``, sans I/O: the clock reports each change with its instant,
/// estimate and status, and writes when told.
public struct PersistenceSchedule: Sendable, Hashable {
    /// The policy followed.
    public let policy: PersistencePolicy
    /// When the last write was decided; `nil` before the first.
    public private(set) var lastWrite: MonotonicInstant?
    /// What the last write saved.
    public struct Written: Sendable, Hashable {
        /// The estimate of θ, in nanoseconds.
        public var estimate: Int64
        /// The clock's status.
        public var status: SynchronizationStatus
    }

    /// The estimate and status written last.
    public private(set) var written: Written?
    /// Whether a change waits for a deferred write.
    public private(set) var pending = false

    /// A schedule that has written nothing yet.
    public init(policy: PersistencePolicy) {
        self.policy = policy
    }

    /// Takes a change of the clock's state.
    /// - Parameters:
    ///   - now: When it changed.
    ///   - estimate: The estimate of θ now, in nanoseconds.
    ///   - status: The clock's status now.
    /// - Returns: Write now, or at an instant (the caller keeps one deferred write scheduled).
    public mutating func changed(at now: MonotonicInstant, estimate: Int64, status: SynchronizationStatus) -> PersistenceDecision {
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
    public mutating func deferredWriteDue(at now: MonotonicInstant, estimate: Int64, status: SynchronizationStatus) -> Bool {
        guard pending else { return false }
        pending = false
        lastWrite = now
        written = Written(estimate: estimate, status: status)
        return true
    }

    /// A write made outside the schedule (``ServerClock/flush()``).
    public mutating func flushed(at now: MonotonicInstant, estimate: Int64, status: SynchronizationStatus) {
        pending = false
        lastWrite = now
        written = Written(estimate: estimate, status: status)
    }
}
