/// Keeps a ``ServerClock`` calibrated from its sources: polls each on its own schedule (an initial
/// burst; then intervals that grow while the clock's error stays within ``Configuration/targetError``
/// and shrink when it widens; backoff on failure; Kiss-o'-Death obeyed), within a request budget, and
/// starts over with a burst when the host says something changed.
///
/// ```swift
/// let sync = try TimeSynchronizer(sources: [.ntp("time.example.com"), .ntp("time2.example.com")])
/// sync.start()
/// if await sync.waitUntilSynchronized(timeout: .seconds(5)) { print(sync.clock.now) }
/// ```
///
/// The status is honest: ``SynchronizationStatus/synchronized`` only once min(3, sources) agree and
/// they are a majority of those heard; before that ``SynchronizationStatus/provisional``.
public final class TimeSynchronizer: Sendable {
    /// The clock kept calibrated.
    public let clock: ServerClock
    /// The sources, in the order given.
    public let sources: [TimeSource]
    /// The sources polled only while ``sources`` are silent.
    public let fallbackSources: [TimeSource]
    /// The settings.
    public let configuration: Configuration
    private let loop: SynchronizerLoop
    private let task = Locked<Task<Void, Never>?>(nil)
    private let observers = Locked<SystemEventObservers?>(nil)
    private let subscribers: EventSubscribers<TimeSynchronizerEvent>

    /// Creates a synchronizer; nothing is sent before ``start()``.
    /// - Parameters:
    ///   - sources: Where samples come from; all must tell the same ``TimeReference``.
    ///   - fallbackSources: Sources polled only while `sources` are silent: when none of those has
    ///     answered ``Configuration/fallbackAfter`` after the start or a resynchronization (UDP
    ///     blocked, say), these join; when one answers again, they stand by. Same reference.
    ///   - configuration: Target error, polling, budget.
    ///   - timeBase: The clocks its sources time their exchanges with; `nil` (the default) for the system's.
    ///   - store: Where the clock's calibration is kept between launches, if anywhere. Only the
    ///     samples of these sources are restored, and they never outvote what the sources say now.
    ///   - keyProvider: The key that authenticates the store (default: ``SystemCalibrationKeyProvider``).
    ///   - onWarning: Receives warnings (an unusable store).
    /// - Throws: ``TimeSyncError`` ``TimeSyncError/Code/noSources``,
    ///   ``TimeSyncError/Code/duplicateSource`` or ``TimeSyncError/Code/mixedReferences``.
    public init(
        sources: [TimeSource], fallbackSources: [TimeSource] = [], configuration: Configuration = .init(),
        timeBase: (any TimeBase)? = nil, store: (any CalibrationStore)? = nil,
        keyProvider: (any CalibrationKeyProvider)? = nil, onWarning: (@Sendable (String) -> Void)? = nil
    ) throws(TimeSyncError) {
        let timeBase = timeBase ?? SystemTimeBase()
        guard !sources.isEmpty else { throw TimeSynchronizerError.noSources.timeSyncError }
        let all = sources + fallbackSources
        var names: Set<String> = []
        for source in all {
            guard names.insert(source.name).inserted else { throw TimeSynchronizerError.duplicateSource(source.name).timeSyncError }
        }
        var references: [TimeReference] = []
        for source in all where !references.contains(source.reference) { references.append(source.reference) }
        guard references.count == 1 else { throw TimeSynchronizerError.mixedReferences(references).timeSyncError }
        var poll = configuration.poll
        // As many as the main sources can muster: the fallback sources, when they are polled, must
        // reach the same count among themselves.
        let minimum = configuration.minimumAgreeingSources ?? min(3, sources.count)
        // A source trusted alone is polled often enough that a break of the model shows in time.
        if minimum <= 1, let target = poll.targetError {
            poll = poll.trustingOneSource(targetError: target, serverSlew: configuration.estimator.serverSlew)
        }
        self.sources = sources
        self.fallbackSources = fallbackSources
        self.configuration = configuration
        var estimator = configuration.estimator
        estimator.authenticatedSources.formUnion(all.filter(\.isAuthenticated).map(\.name))
        let clock = ServerClock(
            timeBase: timeBase,
            configuration: ServerClock.Configuration(
                estimator: estimator, minimumAgreeingSources: minimum, persistence: configuration.persistence,
                restorableSources: names),
            store: store, keyProvider: keyProvider, onWarning: onWarning)
        let subscribers = EventSubscribers<TimeSynchronizerEvent>()
        clock.subscribers.forward { event in
            if let event = TimeSynchronizerEvent(event) { subscribers.emit(event) }
        }
        self.clock = clock
        self.subscribers = subscribers
        loop = SynchronizerLoop(
            clock: clock,
            core: SynchronizerCore(
                sources: sources.map(\.name), fallbackSources: fallbackSources.map(\.name),
                configuration: .init(
                    poll: poll, requestsPerHour: configuration.requestsPerHour,
                    maximumCalibrationAge: configuration.maximumCalibrationAge, fallbackAfter: configuration.fallbackAfter,
                    fallbackOnActivation: NetworkActivation.httpsWakesTheNetwork),
                start: timeBase.monotonicNow()),
            sources: all.map { source in
                let timeout = configuration.timeout
                let driver = source.driver(on: timeBase)
                return .init(name: source.name, measure: { try await driver.measure(until: .after(timeout, on: timeBase)) })
            },
            resolvesInPlace: true, followsClockError: true,
            onNotice: { notice in
                if case .events(let events) = notice { for event in events { subscribers.emit(event) } }
            })
    }

    /// A synchronizer over transports' drivers as they are.
    package convenience init(
        sources: [any SourceDriver], fallbackSources: [any SourceDriver] = [], configuration: Configuration = .init(),
        timeBase: any TimeBase, store: (any CalibrationStore)? = nil,
        keyProvider: (any CalibrationKeyProvider)? = nil, onWarning: (@Sendable (String) -> Void)? = nil
    ) throws(TimeSyncError) {
        try self.init(
            sources: sources.map { TimeSource($0) }, fallbackSources: fallbackSources.map { TimeSource($0) }, configuration: configuration,
            timeBase: timeBase, store: store, keyProvider: keyProvider, onWarning: onWarning)
    }

    /// Starts polling every source (a burst each), and, unless the configuration says otherwise,
    /// following the system's hints that the calibration may be stale
    /// (``Configuration/followsSystemEvents``). Calling it again does nothing.
    public func start() {
        let started = task.withLock { task in
            guard task == nil else { return false }
            task = Task.detached { [loop] in await loop.run() }
            return true
        }
        guard started, configuration.followsSystemEvents else { return }
        let following = SystemEventObservers(following: self)
        observers.withLock { $0 = following }
    }

    /// Stops polling and writes the clock's store.
    public func stop() async {
        let running = task.withLock { task in
            defer { task = nil }
            return task
        }
        running?.cancel()
        observers.withLock { observers in
            observers?.cancel()
            observers = nil
        }
        await running?.value
        try? clock.flush()
        subscribers.finish()
    }

    /// Waits until the clock is ``SynchronizationStatus/synchronized``, at most `timeout` (on the time
    /// base's monotonic clock).
    /// - Returns: Whether it is.
    public func waitUntilSynchronized(timeout: Duration) async -> Bool {
        await waitFor(timeout: timeout) { $0 == .synchronized }
    }

    /// Waits for the first calibration (``SynchronizationStatus/provisional`` or better), at most
    /// `timeout`: Kronos's `first:`.
    /// - Returns: The reading then, or `nil` when none came in time.
    public func firstReading(timeout: Duration) async -> ClockReading? {
        guard await waitFor(timeout: timeout, { $0 == .provisional || $0 == .synchronized }) else { return nil }
        return clock.reading()
    }

    private func waitFor(timeout: Duration, _ condition: @escaping @Sendable (SynchronizationStatus) -> Bool) async -> Bool {
        let clock = self.clock
        let deadline = clock.timeBase.monotonicNow().advanced(by: timeout)
        // The clock wakes its sleepers at every change it publishes.
        return await clock.sleepers.wait(until: { condition(clock.reading().status) }, orUntil: deadline, on: clock.timeBase)
    }

    /// Starts over with a burst on every source: call it when the app enters the foreground, the
    /// network path changes, or anything else suggests the calibration is stale. Within the budget.
    /// - Parameter reason: Said in the ``TimeSynchronizerEvent/resynchronizing(reason:)`` event.
    public func resynchronize(reason: String) {
        loop.trigger(reason: reason)
    }

    /// Resynchronizes because the app came to the foreground: where only URLSession brings up the
    /// network (``NetworkActivation``), the fallback sources are asked at once.
    func resynchronizeOnActivation(reason: String) {
        loop.trigger(reason: reason, activation: true)
    }

    /// Checks the wall clock against the monotonic clock (on `NSSystemClockDidChange`): a jump
    /// resynchronizes, since the user may have changed the time to cheat and the app's decisions
    /// should rest on fresh samples.
    package func wallClockMayHaveChanged() {
        if let jump = clock.checkWallClock() { resynchronize(reason: "the wall clock moved by \(jump)") }
    }

    /// What the synchronizer did and will do next: the clock's status and calibration age, each
    /// source's last success and failure, the latest notable events, and the next poll with its
    /// reason (`nil` while the synchronizer is not running).
    public func diagnostics() -> SynchronizerDiagnostics {
        var diagnostics = loop.diagnostics(polling: task.withLock { $0 != nil })
        diagnostics.observing = observers.withLock { $0?.described } ?? []
        return diagnostics
    }

    /// What the synchronizer does, as it happens.
    public func events(bufferingNewest limit: Int = 64) -> AsyncStream<TimeSynchronizerEvent> {
        subscribers.stream(bufferingNewest: limit)
    }

    /// Whether no poll is in flight and the loop sleeps with no wake-up pending (for tests on a
    /// hand-moved clock).
    package var isSettled: Bool { loop.isSettled }
}
