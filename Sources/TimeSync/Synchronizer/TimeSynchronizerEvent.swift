/// What a ``TimeSynchronizer`` did (Codable for `SynchronizerDiagnostics.history`).
public enum TimeSynchronizerEvent: Sendable, Hashable, Codable {
    /// A source answered and its samples went to the clock.
    case measured(source: String, samples: Int)
    /// A source failed (timeout, refused, rejected reply); it is polled again later.
    case failed(source: String, error: String)
    /// A source asked to be polled less often, or not at all.
    case kissed(source: String, stopped: Bool)
    /// Two different replies came to one request to this source: someone on the path answered besides
    /// the server. The exchange was discarded; the source is polled again later.
    case conflictingReplies(source: String)
    /// Every source has been asked at least once and none has answered: the clock shows the device's
    /// time, unsynchronized. Polling goes on.
    case noSourceAnswered(errors: [String: String])
    /// The fallback sources (HTTPS `Date`, say) are polled too, until another source answers again;
    /// `reason` says why now: no other source answered in time, every other source's last poll
    /// failed on the way, or the app became active where only an HTTPS request wakes the network.
    case fallingBack(sources: [String], reason: String)
    /// Polling restarted with a burst (a trigger: foreground, network change, a wall-clock jump, a
    /// calibration too old).
    case resynchronizing(reason: String)
    /// The clock's status changed (``SynchronizationStatus``): the moment to refresh what depends on
    /// whether the time is known.
    case statusChanged(from: SynchronizationStatus, to: SynchronizationStatus)
    /// A recalibration moved the estimate by more than a millisecond.
    case offsetChanged(by: Duration)
    /// The device's wall clock moved against the monotonic clock by more than a second (the user
    /// changed it, or the system stepped it): reschedule what was timed by the device's clock, such
    /// as local notifications. Server time is unaffected.
    case wallClockChanged(by: Duration)
    /// A source stopped answering while others went on, and the clock dropped its samples.
    case sourceLost(source: String)
    /// The sources disagree and no majority agrees on the time: the last calibration ages with its
    /// bounds.
    case noMajority(sources: Int, largestAgreeing: Int)
    /// A source's sample was rejected (it contradicts what the clock knows); the clock is unchanged.
    case sampleRejected(source: String, reason: String)
    /// Writing the store failed; the clock is unchanged and the next write tries again.
    case storeFailed(reason: String)
    /// The time the sources agree on is below the floor kept across reboots (which the floor's own
    /// bounds could not explain): the floor was lowered by `by`.
    case floorLowered(by: Duration, reason: String)
}

extension TimeSynchronizerEvent {
    /// The clock's event as the synchronizer reports it, `nil` for those it reports otherwise
    /// (each calibration is a ``measured(source:samples:)``) or that come before anyone can listen.
    init?(_ event: ServerClockEvent) {
        switch event {
        case .calibrated, .restored, .storeIgnored: return nil
        case .statusChanged(let from, let to): self = .statusChanged(from: from, to: to)
        case .offsetChanged(let by): self = .offsetChanged(by: by)
        case .wallClockChanged(let by): self = .wallClockChanged(by: by)
        case .sourceLost(let source): self = .sourceLost(source: source)
        case .noMajority(let sources, let largest): self = .noMajority(sources: sources, largestAgreeing: largest)
        case .sampleRejected(let source, let reason): self = .sampleRejected(source: source, reason: reason)
        case .storeFailed(let reason): self = .storeFailed(reason: reason)
        case .floorLowered(let by, let reason): self = .floorLowered(by: by, reason: reason)
        }
    }
}
