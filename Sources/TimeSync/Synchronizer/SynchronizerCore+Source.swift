/// What the core knows of each source.
extension SynchronizerCore {
    /// Why a source's last poll brought no sample, when it says something about the source.
    enum Problem: Sendable, Hashable {
        case kissed(String)
        case unsynchronized
        case conflictingReplies
        case failed
    }

    /// A source's part in the synchronizer, fixed when it is added.
    package enum Role: Sendable, Hashable {
        /// Polled from the start.
        case primary
        /// Polled only while the others are silent.
        case fallback
    }

    /// Whether a source is polled now.
    enum Standing: Sendable, Hashable {
        case polled
        /// A fallback source waiting for the others to fall silent: not polled.
        case standingBy
        /// It asked never to be polled again: kept for its status, never polled.
        case stopped
    }

    /// What the core knows of one source.
    struct Source: Sendable, Hashable {
        var name: String
        let role: Role
        var standing: Standing
        var poller: SourcePoller
        var lastSample: OffsetSample?
        var lastPoll: MonotonicInstant?
        /// Set by a failed poll, cleared by a sample.
        var problem: Problem?
        var lastError: String?
        var lastSuccess: SourceDiagnostics.Success?
        var lastFailure: SourceDiagnostics.Failure?

        var isPolled: Bool { standing == .polled }

        /// A fallback source stands by again (the others answer, or a trigger restarts the bursts).
        mutating func standByIfFallback() {
            if role == .fallback, standing == .polled { standing = .standingBy }
        }
    }
}
