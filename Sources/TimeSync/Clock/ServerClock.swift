import Foundation

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
    /// A point in server time.
    public typealias Instant = UnixTime
    /// A span of time.
    public typealias Duration = Swift.Duration

    /// Settings of a ``ServerClock``.
    public struct Configuration: Sendable, Hashable {
        /// Estimator settings: drift bound, window, source timeout.
        public var estimator: EstimatorConfiguration
        /// A recalibration that moves the estimate by more than this emits
        /// ``ServerClockEvent/offsetChanged(by:)``. Default 1 ms.
        public var offsetChangeThreshold: Duration
        /// A wall-clock move against the monotonic clock larger than this emits
        /// ``ServerClockEvent/wallClockChanged(by:)``. Default 1 s (NTP slews stay far below it).
        public var wallClockChangeThreshold: Duration
        /// How many sources must agree (and be a majority of those heard) before the clock says
        /// ``SynchronizationStatus/synchronized``; fewer agreeing make it
        /// ``SynchronizationStatus/provisional``. Default 1: a clock fed by one server. With several
        /// servers set it to min(3, servers), so that the first reply alone, which one liar could
        /// send, is never called synchronized.
        public var minimumAgreeingSources: Int {
            didSet { minimumAgreeingSources = max(1, minimumAgreeingSources) }
        }
        /// When the store is written: at once for the first calibration and a significant change,
        /// otherwise at most once a minute, in a background task. ``PersistencePolicy/everyCalibration``
        /// writes after every calibration (still in the background).
        public var persistence: PersistencePolicy
        /// The sources whose stored samples are restored; samples of any other source in the store are
        /// dropped. `nil` (the default) restores every source. ``TimeSynchronizer`` sets it to its
        /// sources' names, so a store cannot bring in sources nobody configured.
        public var restorableSources: Set<String>?

        /// Creates a configuration.
        public init(
            estimator: EstimatorConfiguration = .init(),
            offsetChangeThreshold: Duration = .milliseconds(1),
            wallClockChangeThreshold: Duration = .seconds(1),
            minimumAgreeingSources: Int = 1,
            persistence: PersistencePolicy = .init(),
            restorableSources: Set<String>? = nil
        ) {
            self.persistence = persistence
            self.restorableSources = restorableSources
            self.estimator = estimator
            self.offsetChangeThreshold = offsetChangeThreshold
            self.wallClockChangeThreshold = wallClockChangeThreshold
            self.minimumAgreeingSources = max(1, minimumAgreeingSources)
        }
    }

    struct State: Sendable {
        /// Fresh samples only (and the history of sources that confirmed it by answering).
        var estimator: any OffsetEstimator
        var calibration: Calibration?
        var status: SynchronizationStatus = .unsynchronized
        /// Whether ``calibration`` was restored from the store, with no fresh outcome since.
        var calibrationIsRestored = false
        /// Restored samples per source, waiting for the source to answer: then they are offered to
        /// the estimator as history (taken only where they agree with what the source says now).
        var history: [String: [OffsetSample]] = [:]
        /// wall − monotonic at the last check, for tamper detection.
        var wallReference: Int64
        let subscribers: EventSubscribers<ServerClockEvent>
        var generation: UInt64 = 0
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var cancelledWaiters: Set<UInt64> = []
        var nextID: UInt64 = 0
        var persistence: PersistenceSchedule
        /// Snapshots handed to the writer, numbered so an older one never replaces a newer one.
        var snapshots: UInt64 = 0
        var deferredWriteScheduled = false
        /// The task that writes a deferred change, and when it is due.
        var deferredWrite: (due: MonotonicInstant, task: Task<Void, Never>)?

        func emit(_ event: ServerClockEvent) {
            subscribers.emit(event)
        }
    }

    /// The clocks this clock stands on.
    public let timeBase: any TimeBase
    /// How samples become a calibration: the clock starts from this estimator as given (and
    /// ``reset()`` returns to it).
    public let initialEstimator: any OffsetEstimator
    /// The settings.
    public let configuration: Configuration
    /// Where calibrations are saved and restored, if anywhere.
    public let store: (any CalibrationStore)?

    private let usesSystemClocks: Bool
    private let published = PublishedModelCell()
    private let state: Locked<State>
    private let writer: CalibrationWriter?

    /// Creates a clock, restoring a stored calibration of the same boot session if there is one.
    /// - Parameters:
    ///   - timeBase: The monotonic and wall clocks (``SystemTimeBase`` by default).
    ///   - estimator: How samples become a calibration: by default an ``IntersectionEstimator`` with
    ///     the configuration's ``Configuration/estimator`` settings, the only estimator whose bounds
    ///     hold in every case.
    ///   - configuration: Drift bound, thresholds.
    ///   - store: Where to save calibrations; a corrupt, foreign or unauthenticated one is ignored
    ///     with a ``ServerClockEvent/storeIgnored(reason:)`` warning passed to `onWarning`.
    ///   - keyProvider: The key that authenticates the store (default: ``SystemCalibrationKeyProvider``,
    ///     the Keychain on Apple platforms, a private key file on Linux). Without a key the store is
    ///     neither read nor written, with a warning.
    ///   - onWarning: Receives warnings (an unusable store) — bridge it to your logger.
    public init(
        timeBase: any TimeBase = SystemTimeBase(),
        estimator: (any OffsetEstimator)? = nil,
        configuration: Configuration = .init(),
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
        let reference = timeBase.wallNow().nanoseconds.saturatingSubtract(timeBase.monotonicNow().nanoseconds)
        let state = Locked(
            State(
                estimator: estimator, wallReference: reference, subscribers: EventSubscribers(),
                persistence: PersistenceSchedule(policy: configuration.persistence)))
        self.state = state
        var key: [UInt8]?
        if store != nil {
            do {
                let provided = try (keyProvider ?? SystemCalibrationKeyProvider()).key()
                guard provided.count >= SystemCalibrationKeyProvider.minimumKeyLength else {
                    throw CalibrationKeyError("the key has \(provided.count) bytes, fewer than \(SystemCalibrationKeyProvider.minimumKeyLength)")
                }
                key = provided
            } catch {
                let reason = "no key to authenticate it (\(error)): calibrations are neither restored nor saved"
                onWarning?("TimeSync: stored calibration ignored: \(reason)")
                state.withLock { $0.emit(.storeIgnored(reason: reason)) }
            }
        }
        writer = key.flatMap { key in
            store.map { store in
                CalibrationWriter(store: store, key: key) { reason in state.withLock { $0.emit(.storeFailed(reason: reason)) } }
            }
        }
        if let store, let key { restore(from: store, key: key, onWarning: onWarning) }
    }

    // MARK: Reading

    @inline(__always)
    private func monotonicNow() -> MonotonicInstant {
        usesSystemClocks ? MonotonicInstant(nanoseconds: SystemClocks.monotonicNanoseconds()) : timeBase.monotonicNow()
    }

    /// The estimated server time now. Before the first calibration: the device's wall clock.
    /// - Complexity: O(1): one monotonic clock read, no allocation, no lock on Linux.
    public var now: UnixTime {
        let monotonic = monotonicNow()
        let published = self.published.loadEstimate()
        if published.isUnsynchronized { return timeBase.wallNow() }
        if let serverTime = published.serverTime(at: monotonic.nanoseconds) {
            return UnixTime(nanoseconds: serverTime)
        }
        return reading(at: monotonic).serverTime  // before the anchor, or at the range's ends: saturating
    }

    /// The server time now with its bounds, status and calibration age.
    /// - Complexity: O(1), no allocation.
    public func reading() -> ClockReading {
        reading(at: monotonicNow())
    }

    /// The reading the clock gives at a monotonic instant (past or future).
    public func reading(at monotonic: MonotonicInstant) -> ClockReading {
        let published = self.published.load()
        guard published.status != .unsynchronized else {
            let wall = timeBase.wallNow().nanoseconds.saturatingAdd(
                monotonic.nanoseconds.saturatingSubtract(timeBase.monotonicNow().nanoseconds))
            return ClockReading(
                serverTime: UnixTime(nanoseconds: wall), earliest: UnixTime(nanoseconds: .min),
                latest: UnixTime(nanoseconds: .max), status: .unsynchronized, monotonicTime: monotonic, calibrationAge: nil)
        }
        let (estimate, bounds) = published.model.offset(at: monotonic)
        return ClockReading(
            serverTime: UnixTime(nanoseconds: monotonic.nanoseconds.saturatingAdd(estimate)),
            earliest: UnixTime(nanoseconds: monotonic.nanoseconds.saturatingAdd(bounds.lower)),
            latest: UnixTime(nanoseconds: monotonic.nanoseconds.saturatingAdd(bounds.upper)),
            status: published.status, monotonicTime: monotonic,
            calibrationAge: .nanoseconds(monotonic.nanoseconds.saturatingSubtract(published.model.time.nanoseconds)),
            isRestored: published.restored)
    }

    /// Whether the clock is synchronized now.
    public var isSynchronized: Bool { published.load().status == .synchronized }

    /// The sources whose samples the estimator holds now (those heard recently), sorted.
    public var sources: [String] { state.withLock { $0.estimator.sources } }

    /// The samples held as suspects: each contradicts its source's other samples and waits for a
    /// second one to confirm a step.
    public var suspectSamples: [OffsetSample] { state.withLock { $0.estimator.suspectSamples } }

    /// The current calibration, if any (the last good one while sources disagree).
    public var calibration: Calibration? { state.withLock { $0.calibration } }

    /// Where the server time now stands relative to a window (a promotion's start and end).
    public func position(in window: Range<UnixTime>) -> WindowPosition { reading().position(in: window) }

    /// One nanosecond: the resolution of ``UnixTime``.
    public var minimumResolution: Duration { .nanoseconds(1) }

    // MARK: Conversions between server time and device time

    /// The server time that corresponds to a device wall-clock time.
    public func serverTime(forDeviceTime deviceTime: UnixTime) -> UnixTime {
        let monotonic = monotonicNow()
        let wall = timeBase.wallNow()
        let instant = MonotonicInstant(nanoseconds: monotonic.nanoseconds.saturatingAdd(deviceTime.nanoseconds.saturatingSubtract(wall.nanoseconds)))
        return reading(at: instant).serverTime
    }

    /// The device wall-clock time that corresponds to a server time: what to hand to APIs that
    /// schedule on the device clock (local notifications, timers).
    public func deviceTime(forServerTime serverTime: UnixTime) -> UnixTime {
        let monotonic = monotonicNow()
        let wall = timeBase.wallNow()
        let instant = monotonicInstant(forServerTime: serverTime, now: monotonic, wall: wall)
        return UnixTime(nanoseconds: wall.nanoseconds.saturatingAdd(instant.nanoseconds.saturatingSubtract(monotonic.nanoseconds)))
    }

    /// The monotonic instant at which the estimate reaches `serverTime`.
    func monotonicInstant(forServerTime serverTime: UnixTime, now monotonic: MonotonicInstant, wall: @autoclosure () -> UnixTime) -> MonotonicInstant {
        let published = self.published.load()
        guard published.status != .unsynchronized else {
            return MonotonicInstant(nanoseconds: monotonic.nanoseconds.saturatingAdd(serverTime.nanoseconds.saturatingSubtract(wall().nanoseconds)))
        }
        return published.model.monotonicInstant(forServerTime: serverTime)
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
    public func calibrate(with sample: OffsetSample) {
        update { state in
            var outcome = state.estimator.add(sample)
            if let history = state.history.removeValue(forKey: sample.source),
                let merged = state.estimator.addHistory(history)
            {
                outcome = merged
            }
            return outcome
        }
        checkWallClock()
    }

    /// Stops using a source (it is gone, or asked not to be used: NTP `DENY`/`RSTR`). Its samples no
    /// longer count; when it was the last source, the last calibration keeps aging until new samples
    /// come.
    public func removeSource(_ source: String) {
        update { state in
            state.history[source] = nil
            return state.estimator.removeSource(source)
        }
    }

    /// Reports a sample that could not be used; the clock is unchanged. Subscribers see
    /// ``ServerClockEvent/sampleRejected(source:reason:)``.
    public func reject(source: String, reason: String) {
        state.withLock { $0.emit(.sampleRejected(source: source, reason: reason)) }
    }

    /// Forgets every calibration and sample: the clock returns to device time, unsynchronized, and the
    /// store is cleared.
    public func reset() {
        let sequence = state.withLock { state in
            state.estimator = initialEstimator
            state.calibration = nil
            state.calibrationIsRestored = false
            state.history = [:]
            if state.status != .unsynchronized { state.emit(.statusChanged(from: state.status, to: .unsynchronized)) }
            state.status = .unsynchronized
            published.store(.unsynchronized)
            Self.wake(&state)
            state.snapshots += 1
            return state.snapshots
        }
        try? writer?.remove(superseding: sequence)
    }

    private func update(_ change: (inout State) -> EstimatorOutcome) {
        let monotonic = monotonicNow()
        let snapshot: PersistenceStep = state.withLock { state in
            let sourcesBefore = Set(state.estimator.sources)
            let outcome = change(&state)
            let lost = sourcesBefore.subtracting(state.estimator.sources)
            switch outcome {
            case .calibrated(let calibration), .contradicted(let calibration):
                let previous = state.status == .unsynchronized ? nil : state.calibration
                let contradicted = if case .contradicted = outcome { true } else { false }
                let status = contradicted ? .provisional : self.status(of: calibration)
                state.calibration = calibration
                state.calibrationIsRestored = false
                let before = state.status
                state.status = status
                published.store(PublishedModel(status: status, model: calibration.model))
                state.emit(.calibrated(reading(at: monotonic)))
                if before != status { state.emit(.statusChanged(from: before, to: status)) }
                if let previous {
                    let change = calibration.offset(at: monotonic).estimate.saturatingSubtract(previous.offset(at: monotonic).estimate)
                    if change.magnitude > configuration.offsetChangeThreshold.nanosecondsClamped.magnitude {
                        state.emit(.offsetChanged(by: .nanoseconds(change)))
                    }
                }
            case .noMajority(let sources, let agreeing):
                if state.calibration != nil {
                    if state.status != .noMajority { state.emit(.statusChanged(from: state.status, to: .noMajority)) }
                    state.status = .noMajority
                    published.store(
                        PublishedModel(status: .noMajority, model: state.calibration!.model, restored: state.calibrationIsRestored))
                }
                state.emit(.noMajority(sources: sources, largestAgreeing: agreeing))
            case .noSamples:
                // Every source is gone (removed, or asked not to be used): the last calibration still
                // holds, aging honestly, until new samples come or the clock is reset.
                break
            }
            for source in lost.sorted() { state.emit(.sourceLost(source)) }
            Self.wake(&state)
            return persistenceStep(&state, at: monotonic)
        }
        switch snapshot {
        case .none: break
        case .write(let snapshot, let sequence):
            if configuration.persistence.writesInBackground {
                writer?.submit(snapshot, sequence: sequence)
            } else {
                try? writer?.write(snapshot, sequence: sequence)  // a failure is a storeFailed event
            }
        case .schedule(let instant):
            let task = scheduleDeferredWrite(at: instant)
            state.withLock { $0.deferredWrite = (instant, task) }
        }
    }

    // MARK: Persistence


    private enum PersistenceStep {
        case none
        case write(PersistedCalibration, UInt64)
        case schedule(MonotonicInstant)
    }

    /// The snapshot to save now, if the policy says so; with the state locked.
    private func snapshot(_ state: inout State, at monotonic: MonotonicInstant) -> (PersistedCalibration, UInt64)? {
        guard writer != nil, let bootSessionID = timeBase.bootSessionID else { return nil }
        state.snapshots += 1
        return (
            PersistedCalibration(
                bootSessionID: bootSessionID, savedAt: monotonic, strategy: initialEstimator.name,
                calibration: state.calibration,
                samples: state.estimator.samples + state.history.keys.sorted().flatMap { state.history[$0]! }),
            state.snapshots
        )
    }

    private func persistenceStep(_ state: inout State, at monotonic: MonotonicInstant) -> PersistenceStep {
        guard writer != nil, timeBase.bootSessionID != nil else { return .none }
        let estimate = state.calibration?.offset(at: monotonic).estimate ?? 0
        switch state.persistence.changed(at: monotonic, estimate: estimate, status: state.status) {
        case .writeNow:
            return snapshot(&state, at: monotonic).map { .write($0.0, $0.1) } ?? .none
        case .writeAt(let instant):
            guard !state.deferredWriteScheduled else { return .none }
            state.deferredWriteScheduled = true
            return .schedule(instant)
        }
    }

    /// Sleeps (on the time base) until a deferred write is due, then writes the newest state.
    private func scheduleDeferredWrite(at instant: MonotonicInstant) -> Task<Void, Never> {
        Task.detached(priority: .utility) { [weak self, timeBase] in
            try? await timeBase.sleep(until: instant)
            guard let self else { return }
            let monotonic = self.timeBase.monotonicNow()
            let step: (PersistedCalibration, UInt64)? = self.state.withLock { state in
                state.deferredWriteScheduled = false
                let estimate = state.calibration?.offset(at: monotonic).estimate ?? 0
                guard state.persistence.deferredWriteDue(at: monotonic, estimate: estimate, status: state.status) else { return nil }
                return self.snapshot(&state, at: monotonic)
            }
            if let (snapshot, sequence) = step { self.writer?.submit(snapshot, sequence: sequence) }
        }
    }

    /// Writes the clock's state to its store now, on the caller's thread, whatever the policy: call
    /// it when the app goes to the background or stops. Does nothing without a store or on a platform
    /// without boot session identifiers.
    /// - Throws: The store's error (also sent as ``ServerClockEvent/storeFailed(reason:)``).
    public func flush() throws {
        let monotonic = monotonicNow()
        let step: (PersistedCalibration, UInt64)? = state.withLock { state in
            let estimate = state.calibration?.offset(at: monotonic).estimate ?? 0
            state.persistence.flushed(at: monotonic, estimate: estimate, status: state.status)
            return snapshot(&state, at: monotonic)
        }
        if let (snapshot, sequence) = step { try writer?.write(snapshot, sequence: sequence) }
    }

    /// Waits until the background writes queued so far are done (for tests and orderly shutdown).
    package func storeWritesIdle() async {
        // A deferred write already due is waited for too; one still in the future is not.
        if let deferred = state.withLock({ $0.deferredWrite }), timeBase.monotonicNow() >= deferred.due {
            await deferred.task.value
        }
        await writer?.idle()
    }

    // MARK: Wall clock

    /// Compares the wall clock with the monotonic clock; when the wall clock moved by more than the
    /// threshold since the last check, emits ``ServerClockEvent/wallClockChanged(by:)``.
    ///
    /// Call it when the platform says the clock changed (`NSSystemClockDidChange`), or let
    /// ``monitorWallClock(every:)`` poll. The clock's readings never depend on the wall clock.
    /// - Returns: How far the wall clock moved, when it moved more than the threshold.
    @discardableResult
    public func checkWallClock() -> Duration? {
        let monotonic = timeBase.monotonicNow()
        let wall = timeBase.wallNow()
        let reference = wall.nanoseconds.saturatingSubtract(monotonic.nanoseconds)
        return state.withLock { state in
            let change = reference.saturatingSubtract(state.wallReference)
            guard change.magnitude > configuration.wallClockChangeThreshold.nanosecondsClamped.magnitude else { return nil }
            state.wallReference = reference
            state.emit(.wallClockChanged(by: .nanoseconds(change)))
            return .nanoseconds(change)
        }
    }

    /// Checks the wall clock every `interval` until the task is cancelled.
    public func monitorWallClock(every interval: Duration = .seconds(1)) async {
        while !Task.isCancelled {
            checkWallClock()
            do {
                try await timeBase.sleep(until: timeBase.monotonicNow().advanced(by: interval))
            } catch {
                return
            }
        }
    }

    // MARK: Events

    /// A new stream of the clock's events, from now on. Each call makes an independent subscriber;
    /// the stream ends when the clock is deallocated or the consumer stops iterating.
    public func events(bufferingNewest limit: Int = 64) -> AsyncStream<ServerClockEvent> {
        state.withLock { $0.subscribers }.stream(bufferingNewest: limit)
    }

    deinit {
        // Finish outside the lock: finishing runs the streams' termination handlers. A deferred write
        // still waiting (on a time base that may never reach its instant) ends with the clock.
        let (subscribers, deferred) = state.withLock { ($0.subscribers, $0.deferredWrite?.task) }
        subscribers.finish()
        deferred?.cancel()
    }

    // MARK: Sleeping

    /// Suspends until the server's time reaches `deadline`.
    ///
    /// Sleeps on the monotonic clock; a recalibration during the sleep wakes it to recompute the
    /// deadline, so it wakes at the right server time even when the estimate moves meanwhile.
    /// - Throws: `CancellationError` when the task is cancelled.
    public func sleep(until deadline: UnixTime, tolerance: Duration? = nil) async throws {
        while true {
            try Task.checkCancellation()
            let monotonic = timeBase.monotonicNow()
            let generation = state.withLock { $0.generation }
            if reading(at: monotonic).serverTime >= deadline { return }
            // Never sleep for nothing: the clamped estimate can lag the linear solution by a hair.
            let wake = max(
                monotonicInstant(forServerTime: deadline, now: monotonic, wall: self.timeBase.wallNow()),
                monotonic.advanced(by: .nanoseconds(1)))
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await self.timeBase.sleep(until: wake) }
                group.addTask { await self.waitForRecalibration(after: generation) }
                try await group.next()
                group.cancelAll()
            }
        }
    }

    /// Returns once the calibration generation has moved past `generation` (or the task is cancelled).
    func waitForRecalibration(after generation: UInt64) async {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state in
                    if state.generation != generation || state.cancelledWaiters.remove(id) != nil { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                guard let waiter = state.waiters.removeValue(forKey: id) else {
                    state.cancelledWaiters.insert(id)
                    return nil as CheckedContinuation<Void, Never>?
                }
                return waiter
            }
            waiter?.resume()
        }
        state.withLock { _ = $0.cancelledWaiters.remove(id) }
    }

    private static func wake(_ state: inout State) {
        state.generation &+= 1
        let waiters = state.waiters.values
        state.waiters.removeAll()
        for waiter in waiters { waiter.resume() }
    }

    // MARK: Persistence

    /// Synchronized when enough sources agree, provisional otherwise.
    private func status(of calibration: Calibration) -> SynchronizationStatus {
        calibration.sources.count >= configuration.minimumAgreeingSources ? .synchronized : .provisional
    }

    private func restore(from store: any CalibrationStore, key: [UInt8], onWarning: (@Sendable (String) -> Void)?) {
        let outcome = PersistedCalibration.restore(from: store, key: key, timeBase: timeBase)
        switch outcome {
        case .none:
            return
        case .ignored(let reason):
            onWarning?("TimeSync: stored calibration ignored: \(reason)")
            state.withLock { $0.emit(.storeIgnored(reason: reason)) }
        case .restored(let persisted):
            let allowed = configuration.restorableSources
            let samples = allowed.map { allowed in persisted.samples.filter { allowed.contains($0.source) } } ?? persisted.samples
            // The restored calibration is computed apart from the clock's estimator, which takes only
            // fresh samples: what was stored can never outvote what the sources say now.
            var replay = initialEstimator
            let result = replay.restore(samples)
            state.withLock { state in
                for sample in replay.samples { state.history[sample.source, default: []].append(sample) }
                if case .calibrated(let calibration) = result {
                    let status = self.status(of: calibration)
                    state.calibration = calibration
                    state.calibrationIsRestored = true
                    state.status = status
                    published.store(PublishedModel(status: status, model: calibration.model, restored: true))
                    state.emit(.restored(calibration))
                }
            }
        }
    }
}
