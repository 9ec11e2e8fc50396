/// A clock that tells the server's time: calibrated by samples from any source, anchored on the
/// monotonic clock (which counts through sleep and ignores wall-clock changes), with an honest error
/// bound on every reading.
///
/// ```swift
/// let clock = ServerClock()
/// clock.calibrate(with: sample)          // from NTP, an HTTP header, …
/// let reading = clock.reading()          // estimate, earliest, latest, status
/// if reading.position(in: saleStart..<saleEnd) == .within { … }
/// try await clock.sleep(until: saleStart) // wakes at server time, even across recalibrations
/// ```
///
/// Before the first calibration the clock returns the device's wall clock, flagged
/// ``SynchronizationStatus/unsynchronized`` with unbounded error.
///
/// Reading (``now``, ``reading()``) costs one monotonic clock read and a few arithmetic operations:
/// no allocation, and on Linux no lock (readers use a sequence lock). Calibrating takes a lock and may
/// write the store.
public final class ServerClock: Clock, Sendable {
    struct State: Sendable {
        var calibration: CalibrationState
        var wallClock: WallClockMonitor
        /// Moves on every change of the calibration: sleepers recompute their deadline.
        var generation: UInt64 = 0
    }

    /// The clocks this clock stands on.
    public let timeBase: any TimeBase
    /// How samples become a calibration: the clock starts from this estimator as given (and
    /// ``reset()`` returns to it).
    package let initialEstimator: any OffsetEstimator
    /// The settings.
    package let configuration: Configuration
    /// Where calibrations are saved and restored, if anywhere.
    public let store: (any CalibrationStore)?

    let usesSystemClocks: Bool
    let published = PublishedModelCell()
    let state: Locked<State>
    let subscribers: EventSubscribers<ServerClockEvent>
    /// Tasks sleeping until a server time, woken by every change of the calibration.
    let sleepers = Waiters()
    /// Saves the state when the clock has a store and a key to seal it with.
    let persistence: ClockPersistence?
    /// What a user should know of the store when it does not work as asked: why it is not used, or
    /// that the boot time tells boots apart; `nil` when it works, or there is none.
    package let persistenceNote: String?

    /// Creates a clock, restoring a stored calibration of the same boot session if there is one.
    /// - Parameters:
    ///   - timeBase: The monotonic and wall clocks; `nil` (the default) for the system's.
    ///   - store: Where to save calibrations; a corrupt, foreign or unauthenticated one is ignored,
    ///     with a warning passed to `onWarning`.
    ///   - keyProvider: The key that authenticates the store (default: ``SystemCalibrationKeyProvider``,
    ///     the Keychain on Apple platforms, a private key file on Linux). Without a key the store is
    ///     not read, with a warning, and each write asks for the key again.
    ///   - onWarning: Receives warnings (an unusable store) — bridge it to your logger.
    public convenience init(
        timeBase: (any TimeBase)? = nil,
        store: (any CalibrationStore)? = nil,
        keyProvider: (any CalibrationKeyProvider)? = nil,
        onWarning: (@Sendable (String) -> Void)? = nil
    ) {
        let timeBase = timeBase ?? SystemTimeBase()
        self.init(
            timeBase: timeBase, estimator: nil, configuration: .init(), store: store, keyProvider: keyProvider,
            onWarning: onWarning)
    }

    /// A clock over an estimator of the caller's (the simulator compares strategies this way).
    package init(
        timeBase: any TimeBase,
        estimator: (any OffsetEstimator)? = nil,
        configuration: Configuration,
        store: (any CalibrationStore)? = nil,
        keyProvider: (any CalibrationKeyProvider)? = nil,
        onWarning: (@Sendable (String) -> Void)? = nil
    ) {
        self.timeBase = timeBase
        let estimator = estimator ?? IntersectionEstimator(configuration.estimator)
        self.initialEstimator = estimator
        self.configuration = configuration
        self.store = store
        self.usesSystemClocks = timeBase is SystemTimeBase
        state = Locked(
            State(
                calibration: CalibrationState(
                    estimator: estimator, minimumAgreeingSources: configuration.minimumAgreeingSources,
                    offsetChangeThreshold: configuration.offsetChangeThreshold, maxDrift: configuration.estimator.maxDrift),
                wallClock: WallClockMonitor(timeBase.wallClockPair(), threshold: configuration.wallClockChangeThreshold)))
        let subscribers = EventSubscribers<ServerClockEvent>()
        self.subscribers = subscribers
        var note: String?
        let opened = store.flatMap {
            Self.open(
                $0, keyProvider: keyProvider, timeBase: timeBase, policy: configuration.persistence, events: subscribers, onWarning: onWarning,
                note: &note)
        }
        persistence = opened?.persistence
        persistenceNote = note
        if let opened, let key = opened.key { restore(from: opened.store, key: key, onWarning: onWarning) }
    }

    // MARK: Calibration

    /// Feeds a sample to the estimator and publishes the result.
    ///
    /// Also checks the wall clock against the monotonic clock (tamper detection) and saves to the store.
    ///
    /// The first sample of a source whose samples were restored from the store offers them to the
    /// estimator as history (kept only where they agree with the new sample); until then restored
    /// samples count for nothing against fresh ones: the first fresh outcome replaces the restored
    /// calibration, and the status is decided by the sources that answered.
    package func calibrate(with sample: OffsetSample) {
        calibrate(with: [sample])
    }

    /// Feeds one measurement's samples to the estimator at once, in order, and publishes the result
    /// once: one vote across sources, one set of events, one persistence decision. What
    /// ``calibrate(with:)-(OffsetSample)`` does for one sample.
    package func calibrate(with samples: [OffsetSample]) {
        take(samples)
    }

    /// ``calibrate(with:)-([OffsetSample])``, returning the events it emitted (what a synchronizer
    /// keeps in its diagnostics).
    @discardableResult
    package func take(_ samples: [OffsetSample]) -> [ServerClockEvent] {
        guard !samples.isEmpty else { return [] }
        // One reading of the clocks, one lock: the calibration and the wall clock's check.
        return apply(checkingWallClock: timeBase.wallClockPair()) { $0.add(samples, at: $1) }
    }

    /// Stops using a source (it is gone, or asked not to be used: NTP `DENY`/`RSTR`). Its samples no
    /// longer count; when it was the last source, the last calibration keeps aging until new samples
    /// come.
    public func removeSource(_ source: String) {
        apply { $0.removeSource(source, at: $1) }
    }

    /// Reports a sample that could not be used; the clock is unchanged. Subscribers see
    /// `ServerClockEvent.sampleRejected(source:reason:)`.
    public func reject(source: String, reason: String) {
        subscribers.emit(.sampleRejected(source: source, reason: reason))
    }

    /// Forgets every calibration and sample: the clock returns to device time, unsynchronized, and the
    /// store is cleared.
    public func reset() {
        let removal = state.withLock { state in
            publish(state.calibration.reset(), in: &state)
            return persistence?.removal()
        }
        sleepers.wakeAll()
        if let removal { try? persistence?.remove(superseding: removal) }
    }

    /// Applies a change of the calibration state: publishes it, emits its events (in order, under the
    /// lock), saves it, and wakes sleepers.
    /// - Parameters:
    ///   - pair: The clocks read just before, when the wall clock is to be checked too (its change
    ///     event follows the calibration's); the change is then made at its monotonic instant.
    ///   - change: The change, at an instant.
    /// - Returns: The change's events.
    @discardableResult
    func apply(checkingWallClock pair: WallClockPair? = nil, _ change: (inout CalibrationState, MonotonicInstant) -> CalibrationState.Change) -> [ServerClockEvent] {
        let monotonic = pair?.monotonic ?? monotonicNow()
        let events = state.withLock { state in
            let made = change(&state.calibration, monotonic)
            publish(made, in: &state)
            persistence?.changed(state.calibration, at: monotonic) { [weak self] in self?.deferredWriteDue() }
            if let pair { checkWallClock(pair, in: &state) }
            return made.events
        }
        sleepers.wakeAll()
        return events
    }

    func publish(_ change: CalibrationState.Change, in state: inout State) {
        if let model = change.published { published.store(model) }
        for event in change.events { subscribers.emit(event) }
        state.generation &+= 1
    }

    /// A new stream of the clock's events, from now on. Each call makes an independent subscriber;
    /// the stream ends when the clock is deallocated or the consumer stops iterating.
    package func events(bufferingNewest limit: Int = 64) -> AsyncStream<ServerClockEvent> {
        subscribers.stream(bufferingNewest: limit)
    }

    deinit {
        // A deferred write still waiting (on a time base that may never reach its instant) ends with
        // the clock.
        subscribers.finish()
        persistence?.cancelDeferredWrite()
    }
}
