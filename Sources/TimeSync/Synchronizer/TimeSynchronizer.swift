/// Why a ``TimeSynchronizer`` cannot be made.
public enum TimeSynchronizerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No source.
    case noSources
    /// Two sources have the same name: their samples would be taken for one server's.
    case duplicateSource(String)
    /// The sources tell different times (UTC and your service's, or two services'): a clock follows
    /// one reference, and mixing them would make every source look like a falseticker.
    case mixedReferences([TimeReference])

    public var description: String {
        switch self {
        case .noSources: "no time source"
        case .duplicateSource(let name): "two sources are named \(name)"
        case .mixedReferences(let references):
            "sources tell different times (\(references.map(\.description).joined(separator: ", "))): "
                + "a synchronizer follows one reference; use one synchronizer per reference"
        }
    }
}

/// What a ``TimeSynchronizer`` knows of one source.
public struct TimeSourceStatus: Sendable, Hashable {
    /// Where the source stands.
    public enum State: String, Sendable, Hashable, Codable {
        /// Its samples agree with the majority the clock follows now.
        case selected
        /// It answers, but outside the majority: its time is not used.
        case falseticker
        /// It answers, but the sources have no majority now: nobody is selected.
        case unselected
        /// Its last reply contradicts its earlier ones and is held until a second reply confirms
        /// a step (or one refutes it); its time is not used meanwhile.
        case suspect
        /// Its last reply was a Kiss-o'-Death (see ``TimeSourceStatus/kissCode``): `RATE` slows the
        /// polling down, `DENY` and `RSTR` stop it.
        case kissed
        /// It answers that its own clock is not synchronized (NTP leap indicator 3 or stratum 16).
        case unsynchronized
        /// Two different replies came to one request: someone on the path answered besides the
        /// server. The exchange was discarded.
        case conflictingReplies
        /// Its last eight polls brought no usable reply.
        case unreachable
        /// No reply yet.
        case pending
    }

    /// The source's name.
    public var source: String
    /// Where it stands.
    public var state: State
    /// Its own last measurement of server time − this device's wall clock (the middle of its
    /// sample's bounds), when it answered.
    public var offset: Duration?
    /// NTP's reachability register: the last eight polls, newest in the lowest bit.
    public var reachability: UInt8
    /// Polls sent.
    public var polls: Int
    /// For a `kissed` source: the Kiss-o'-Death code (`RATE`, `DENY`, `RSTR`, …).
    public var kissCode: String?
    /// Why its last poll failed, when it did.
    public var lastError: String?
}

/// What a ``TimeSynchronizer`` did.
public enum TimeSynchronizerEvent: Sendable, Hashable {
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
    /// Polling restarted with a burst (a trigger: foreground, network change, a wall-clock jump, a
    /// calibration too old).
    case resynchronizing(reason: String)
}

/// Keeps a ``ServerClock`` calibrated from its sources: polls each on its own schedule (an initial
/// burst; then intervals that grow while the clock's error stays within ``Configuration/targetError``
/// and shrink when it widens; backoff on failure; Kiss-o'-Death obeyed), within a request budget, and
/// starts over with a burst when the host says something changed.
///
/// ```swift
/// let sync = try TimeSynchronizer(sources: [NTPTimeSource(NTPServerAddress(host: "time.example.com"))])
/// sync.start()
/// if await sync.waitUntilSynchronized(timeout: .seconds(5)) { print(sync.clock.now) }
/// ```
///
/// The status is honest: ``SynchronizationStatus/synchronized`` only once min(3, sources) agree and
/// they are a majority of those heard; before that ``SynchronizationStatus/provisional``.
public final class TimeSynchronizer: Sendable {
    /// Settings.
    public struct Configuration: Sendable {
        /// The error (half the width of the clock's bounds) to keep: polling speeds up while the
        /// error is above it and slows down while it is well below. Default 50 ms.
        public var targetError: Duration
        /// Burst and interval limits of each source.
        public var poll: NTPPollPolicy
        /// The most requests per hour over all sources; `nil` for no cap. For mobile apps.
        public var requestsPerHour: Double?
        /// Each measurement's deadline, for the whole exchange. Default 5 s.
        public var timeout: Duration
        /// A calibration older than this restarts polling with a burst. Default 1 hour.
        public var maximumCalibrationAge: Duration
        /// How many sources must agree for `synchronized`; `nil` for min(3, sources).
        public var minimumAgreeingSources: Int?
        /// When the clock's store is written.
        public var persistence: PersistencePolicy

        /// Creates a configuration.
        public init(
            targetError: Duration = .milliseconds(50), poll: NTPPollPolicy = .init(), requestsPerHour: Double? = nil,
            timeout: Duration = .seconds(5), maximumCalibrationAge: Duration = .seconds(3600),
            minimumAgreeingSources: Int? = nil, persistence: PersistencePolicy = .init()
        ) {
            self.targetError = targetError
            self.poll = poll
            self.requestsPerHour = requestsPerHour
            self.timeout = timeout
            self.maximumCalibrationAge = maximumCalibrationAge
            self.minimumAgreeingSources = minimumAgreeingSources
            self.persistence = persistence
        }
    }

    /// Why a source's last poll brought no sample, when it says something about the source.
    private enum Problem: Sendable, Hashable {
        case kissed(String)
        case unsynchronized
        case conflictingReplies
        case failed
    }

    private struct SourceState: Sendable {
        var poller: NTPSourcePoller
        var lastSample: OffsetSample?
        /// Set by a failed poll, cleared by a sample.
        var problem: Problem?
        var lastError: String?
        /// Set while the source's task sleeps; a wake (``resynchronize(reason:)``, ``stop()``) ends
        /// the sleep through `wake`, or through `wakeRequested` when it comes before `wake` is set.
        var sleeping = false
        var wakeRequested = false
        var wake: CheckedContinuation<Void, Never>?

        /// Ends the sleep now or as soon as it starts waiting; returns the continuation to resume.
        mutating func requestWake() -> CheckedContinuation<Void, Never>? {
            guard sleeping else { return nil }
            wakeRequested = true
            defer { wake = nil }
            return wake
        }
    }

    private struct State: Sendable {
        var sources: [SourceState]
        var budget: RequestBudget
        var tasks: [Task<Void, Never>] = []
        /// When a calibration too old last restarted polling: at most once per maximum age, so that an
        /// offline device does not burst on every wake.
        var lastAgeResynchronization: MonotonicInstant?
        /// Whether the silence of every source was reported.
        var silenceReported = false
    }

    /// The clock kept calibrated.
    public let clock: ServerClock
    /// The sources, in the order given.
    public let sources: [any TimeSource]
    /// The settings.
    public let configuration: Configuration
    private let state: Locked<State>
    private let subscribers = EventSubscribers<TimeSynchronizerEvent>()

    /// Creates a synchronizer; nothing is sent before ``start()``.
    /// - Parameters:
    ///   - sources: Where samples come from; all must tell the same ``TimeReference``.
    ///   - configuration: Target error, polling, budget.
    ///   - timeBase: The clocks (``SystemTimeBase`` by default).
    ///   - store: Where the clock's calibration is kept between launches, if anywhere. Only the
    ///     samples of these sources are restored, and they never outvote what the sources say now.
    ///   - keyProvider: The key that authenticates the store (default: ``SystemCalibrationKeyProvider``).
    ///   - onWarning: Receives warnings (an unusable store).
    /// - Throws: ``TimeSynchronizerError``.
    public init(
        sources: [any TimeSource], configuration: Configuration = .init(), timeBase: any TimeBase = SystemTimeBase(),
        store: (any CalibrationStore)? = nil, keyProvider: (any CalibrationKeyProvider)? = nil,
        onWarning: (@Sendable (String) -> Void)? = nil
    ) throws(TimeSynchronizerError) {
        guard !sources.isEmpty else { throw .noSources }
        var names: Set<String> = []
        for source in sources {
            guard names.insert(source.name).inserted else { throw .duplicateSource(source.name) }
        }
        var references: [TimeReference] = []
        for source in sources where !references.contains(source.reference) { references.append(source.reference) }
        guard references.count == 1 else { throw .mixedReferences(references) }
        var poll = configuration.poll
        poll.targetError = configuration.targetError
        let minimum = configuration.minimumAgreeingSources ?? min(3, sources.count)
        self.sources = sources
        self.configuration = configuration
        clock = ServerClock(
            timeBase: timeBase,
            configuration: ServerClock.Configuration(
                minimumAgreeingSources: minimum, persistence: configuration.persistence, restorableSources: names),
            store: store, keyProvider: keyProvider, onWarning: onWarning)
        let now = timeBase.monotonicNow()
        state = Locked(
            State(
                sources: sources.map { _ in SourceState(poller: NTPSourcePoller(policy: poll, start: now)) },
                budget: RequestBudget(requestsPerHour: configuration.requestsPerHour, burst: Double(max(8, sources.count * poll.burstCount)))))
    }

    /// Starts polling every source (a burst each). Calling it again does nothing.
    public func start() {
        state.withLock { state in
            guard state.tasks.isEmpty else { return }
            state.tasks = sources.indices.map { index in
                Task.detached { [weak self] in await self?.poll(index) }
            }
        }
    }

    /// Stops polling and writes the clock's store.
    public func stop() async {
        let (tasks, wakes) = state.withLock { state in
            let tasks = state.tasks
            state.tasks = []
            let wakes = state.sources.indices.compactMap { state.sources[$0].requestWake() }
            return (tasks, wakes)
        }
        for wake in wakes { wake.resume() }
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
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
        if condition(clock.reading().status) { return true }
        let events = clock.events()
        let timeBase = clock.timeBase
        let deadline = timeBase.monotonicNow().advanced(by: timeout)
        let clock = self.clock
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await event in events {
                    if case .statusChanged(_, let to) = event, condition(to) { return true }
                    if condition(clock.reading().status) { return true }
                }
                return false
            }
            group.addTask {
                try? await timeBase.sleep(until: deadline)
                return condition(clock.reading().status)
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

    /// Starts over with a burst on every source: call it when the app enters the foreground, the
    /// network path changes, or anything else suggests the calibration is stale. Within the budget.
    /// - Parameter reason: Said in the ``TimeSynchronizerEvent/resynchronizing(reason:)`` event.
    public func resynchronize(reason: String) {
        let now = clock.timeBase.monotonicNow()
        let wakes = state.withLock { state in
            var wakes: [CheckedContinuation<Void, Never>] = []
            for index in state.sources.indices {
                state.sources[index].poller.restartBurst(at: now)
                if let wake = state.sources[index].requestWake() { wakes.append(wake) }
            }
            return wakes
        }
        emit(.resynchronizing(reason: reason))
        for wake in wakes { wake.resume() }
    }

    /// Checks the wall clock against the monotonic clock (call it on `NSSystemClockDidChange`, or when
    /// the host's time changed): a jump resynchronizes, since the user may have changed the time to
    /// cheat and the app's decisions should rest on fresh samples.
    public func wallClockMayHaveChanged() {
        if let jump = clock.checkWallClock() { resynchronize(reason: "the wall clock moved by \(jump)") }
    }

    /// Each source's state now.
    public func sourceStatuses() -> [TimeSourceStatus] {
        let status = clock.reading().status
        // Sources are selected only while a majority stands behind the calibration now.
        let current = status == .synchronized || status == .provisional
        let selected = current ? Set(clock.calibration?.sources ?? []) : []
        let heard = Set(clock.sources)
        let suspects = Set(clock.suspectSamples)
        let pair = clock.timeBase.wallClockPair()
        let shift = pair.wall.nanoseconds.saturatingSubtract(pair.monotonic.nanoseconds)
        return state.withLock { state in
            sources.indices.map { index in
                let source = sources[index]
                let known = state.sources[index]
                let offset = known.lastSample.map { Duration.nanoseconds($0.offset.midpoint.saturatingSubtract(shift)) }
                let status: TimeSourceStatus.State
                let answeredPolls = min(8, known.poller.schedule.policy.burstCount)
                var kissCode: String?
                switch known.problem {
                case .kissed(let code):
                    status = .kissed
                    kissCode = code
                case .unsynchronized:
                    status = .unsynchronized
                case .conflictingReplies:
                    status = .conflictingReplies
                case .failed, nil:
                    if known.poller.reachability == 0, known.poller.polls - (known.poller.awaitingReply ? 1 : 0) >= answeredPolls {
                        status = .unreachable
                    } else if let last = known.lastSample, suspects.contains(last) {
                        status = .suspect
                    } else if selected.contains(source.name) {
                        status = .selected
                    } else if !current, heard.contains(source.name) {
                        status = .unselected
                    } else if heard.contains(source.name) || known.lastSample != nil {
                        status = .falseticker
                    } else {
                        status = .pending
                    }
                }
                return TimeSourceStatus(
                    source: source.name, state: status, offset: offset, reachability: known.poller.reachability,
                    polls: known.poller.polls, kissCode: kissCode, lastError: known.lastError)
            }
        }
    }

    /// What the synchronizer does, as it happens.
    public func events(bufferingNewest limit: Int = 64) -> AsyncStream<TimeSynchronizerEvent> {
        subscribers.stream(bufferingNewest: limit)
    }

    private func emit(_ event: TimeSynchronizerEvent) {
        subscribers.emit(event)
    }

    // MARK: Polling

    /// Executes one source's poller until it demobilizes or the task is cancelled.
    private func poll(_ index: Int) async {
        let source = sources[index]
        let timeBase = clock.timeBase
        while !Task.isCancelled {
            let now = timeBase.monotonicNow()
            if let age = clock.reading().calibrationAge, age > configuration.maximumCalibrationAge {
                let due = state.withLock { state -> Bool in
                    if let last = state.lastAgeResynchronization, last.duration(to: now) < configuration.maximumCalibrationAge {
                        return false
                    }
                    state.lastAgeResynchronization = now
                    return true
                }
                if due { resynchronize(reason: "the calibration is \(age) old") }
            }
            let action = state.withLock { state in
                state.sources[index].poller.nextAction(at: now, budget: &state.budget)
            }
            switch action {
            case .wait(let until):
                await sleep(index, until: until)
            case .demobilize:
                clock.removeSource(source.name)
                return
            case .resolve:
                // Silent for eight polls. Sources resolve their names at each measurement: poll on,
                // at the longest interval, until it answers.
                state.withLock { $0.sources[index].poller.resolved(at: now) }
            case .send:
                let outcome: NTPPollOutcome
                do {
                    let samples = try await source.measure(timeout: configuration.timeout)
                    for sample in samples { clock.calibrate(with: sample) }
                    state.withLock { state in
                        state.sources[index].lastSample = samples.last
                        state.sources[index].problem = nil
                        state.sources[index].lastError = nil
                    }
                    emit(.measured(source: source.name, samples: samples.count))
                    outcome = .sample
                } catch is CancellationError {
                    return
                } catch {
                    outcome = source.pollOutcome(for: error)
                    clock.reject(source: source.name, reason: "\(error)")
                    let problem = Self.problem(error, outcome: outcome)
                    state.withLock { state in
                        state.sources[index].problem = problem
                        state.sources[index].lastError = "\(error)"
                    }
                    switch problem {
                    case .kissed: emit(.kissed(source: source.name, stopped: outcome == .kiss(.stopUsingServer)))
                    case .conflictingReplies: emit(.conflictingReplies(source: source.name))
                    case .unsynchronized, .failed: emit(.failed(source: source.name, error: "\(error)"))
                    }
                }
                let error = clock.reading().error
                let silence = state.withLock { state -> [String: String]? in
                    state.sources[index].poller.handle(outcome, at: timeBase.monotonicNow(), error: error)
                    return self.silenceToReport(&state)
                }
                if let silence { emit(.noSourceAnswered(errors: silence)) }
            }
        }
    }

    /// What a failed poll says about its source.
    private static func problem(_ error: any Error, outcome: NTPPollOutcome) -> Problem {
        if case .kiss = outcome {
            return .kissed((error as? NTPReplyError)?.kissCode.map { "\($0)" } ?? "kiss")
        }
        if case .retryAfter = outcome { return .kissed("Retry-After") }
        if let error = error as? NTPReplyError {
            if error == .conflictingReplies { return .conflictingReplies }
            if error == .unsynchronized { return .unsynchronized }
        }
        return .failed
    }

    /// The last error of every source, once: when each has been asked at least once and none has
    /// ever answered.
    private func silenceToReport(_ state: inout State) -> [String: String]? {
        guard !state.silenceReported, state.sources.allSatisfy({ $0.lastSample == nil }),
            state.sources.allSatisfy({ $0.poller.polls > 0 && !$0.poller.awaitingReply && $0.lastError != nil })
        else { return nil }
        state.silenceReported = true
        var errors: [String: String] = [:]
        for index in sources.indices { errors[sources[index].name] = state.sources[index].lastError }
        return errors
    }

    /// Sleeps until `until`, or until ``resynchronize(reason:)`` or ``stop()`` wakes this source.
    private func sleep(_ index: Int, until: MonotonicInstant) async {
        let timeBase = clock.timeBase
        let state = self.state
        state.withLock {
            $0.sources[index].sleeping = true
            $0.sources[index].wakeRequested = false
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await timeBase.sleep(until: until) }
            group.addTask {
                await withCheckedContinuation { continuation in
                    let now = state.withLock { state -> Bool in
                        if !state.sources[index].sleeping || state.sources[index].wakeRequested { return true }
                        state.sources[index].wake = continuation
                        return false
                    }
                    if now { continuation.resume() }
                }
            }
            await group.next()
            group.cancelAll()
            let wake = state.withLock { state in
                state.sources[index].sleeping = false
                defer { state.sources[index].wake = nil }
                return state.sources[index].wake
            }
            wake?.resume()
            await group.waitForAll()
        }
    }
}
