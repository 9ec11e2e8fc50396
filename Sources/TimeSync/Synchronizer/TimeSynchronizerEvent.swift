/// What a ``TimeSynchronizer`` did (Codable for ``SynchronizerDiagnostics/history``).
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
}
