/// The polling of a synchronizer's sources, sans I/O: one `SourcePoller` per source, the request
/// budget they share, the triggers that restart a burst (a network change, a resume, a calibration too
/// old), the fallback sources polled only while the others are silent, and what each source's last
/// poll says about it.
///
/// Fallback sources (HTTPS `Date` where UDP may be blocked, say) stand by. When no other source has
/// answered ``Configuration/fallbackAfter`` after the start or a trigger, they join with a burst
/// (``Action/fallBack(sources:)``); when another source answers again they stand by once more. They
/// join at once when every other source's last poll brought no usable reply (none in time, a network
/// error, a rejected datagram; a server's refusal is an answer), and on an activation when
/// ``Configuration/fallbackOnActivation`` is set (an app came to the foreground: a URLSession request
/// brings up a cellular radio or a VPN on demand that UDP on BSD sockets does not).
///
/// The driver loops: ask ``nextAction(at:calibrationAge:)``; on ``Action/poll(source:)`` measure that
/// source (other sources' actions may be asked for meanwhile) and report what came back with
/// ``handle(_:at:clockError:clockErrorAfter:)``; on ``Action/wait(until:)`` sleep until then, or until an event
/// arrives. Every instant comes from the caller: a test drives hours of polling with a hand-moved
/// clock, no sockets, no tasks and no sleeps.
package struct SynchronizerCore: Sendable, Hashable {
    /// Settings.
    package struct Configuration: Sendable, Hashable {
        /// Burst and intervals of each source.
        package var poll: PollPolicy
        /// The most requests per hour over all sources; `nil` for no cap.
        package var requestsPerHour: Double?
        /// A calibration older than this restarts every source's burst, at most once per this age;
        /// `nil`: never.
        package var maximumCalibrationAge: Duration?
        /// Unanswered polls in a row after which a source's name is resolved again.
        package var unreachableAfter: Int
        /// How long the fallback sources wait, after the start or a trigger, for another source to
        /// answer before they are polled.
        package var fallbackAfter: Duration
        /// Whether the fallback sources join at once on an activation (the start, an app coming to
        /// the foreground), with the others rather than after ``fallbackAfter``.
        package var fallbackOnActivation: Bool
        /// How many notable events the diagnostics' history keeps.
        package var historyLength: Int

        /// Creates a configuration.
        package init(
            poll: PollPolicy = .init(), requestsPerHour: Double? = nil, maximumCalibrationAge: Duration? = nil,
            unreachableAfter: Int = 8, fallbackAfter: Duration = .seconds(5), fallbackOnActivation: Bool = false,
            historyLength: Int = SynchronizerDiagnostics.historyLength
        ) {
            self.historyLength = max(1, historyLength)
            self.fallbackAfter = max(.zero, fallbackAfter)
            self.fallbackOnActivation = fallbackOnActivation
            self.poll = poll
            self.requestsPerHour = requestsPerHour
            self.maximumCalibrationAge = maximumCalibrationAge
            self.unreachableAfter = max(1, unreachableAfter)
        }
    }

    /// What the driver does next.
    package enum Action: Sendable, Hashable {
        /// Measure this source now, then report the result with `SynchronizerCore.handle(_:at:clockError:clockErrorAfter:)`.
        case poll(source: Int)
        /// The source has not answered for ``Configuration/unreachableAfter`` polls: resolve its name
        /// again, then report ``Event/resolved(source:)`` (or `SynchronizerCore.removeSource(_:)`).
        case resolve(source: Int)
        /// The source asked never to be polled again (`DENY`, `RSTR`): remove it from the clock.
        case remove(source: Int)
        /// The calibration is older than ``Configuration/maximumCalibrationAge``: every source has
        /// started a burst. Tell the user why.
        case resynchronize(reason: String)
        /// No other source answered within ``Configuration/fallbackAfter``: these fallback sources
        /// have started a burst. Tell the user.
        case fallBack(sources: [Int])
        /// Nothing is due before this instant (`nil`: before the next event): sleep until then, or
        /// until an event comes.
        case wait(until: MonotonicInstant?)
    }

    /// What happened, for the core to take in.
    package enum Event: Sendable, Hashable {
        /// A measurement of the source brought these samples (already given to the clock).
        case samples(source: Int, [OffsetSample])
        /// A measurement brought no sample: what that means for polling (never `.sample`), the
        /// server's word for a refusal if it sent one (`RATE`, `DENY`, `HTTP 429`), and the error.
        case failed(source: Int, outcome: PollOutcome, refusal: String?, error: String)
        /// The source's name was resolved again after ``Action/resolve(source:)``.
        case resolved(source: Int)
        /// Something suggests the calibration is stale (the app came to the foreground, the network
        /// changed, the wall clock jumped): every source starts a burst, within the budget. An
        /// `activation` (the app came to the foreground) brings the fallback sources in at once when
        /// ``Configuration/fallbackOnActivation`` is set.
        case trigger(reason: String, activation: Bool = false)
    }

    /// The settings.
    package let configuration: Configuration
    /// The budget every source's requests come out of.
    package private(set) var budget: RequestBudget
    /// The sources by identifier: an identifier is never given to another source.
    private(set) var sources: [Int: Source] = [:]
    private var nextIdentifier = 0
    /// When a calibration too old last restarted polling: at most once per maximum age, so that an
    /// offline device does not burst on every wake.
    private var lastAgeTrigger: MonotonicInstant?
    /// Whether the silence of every source was reported.
    private var silenceReported = false
    /// When the fallback sources join unless another source answers first; `nil` when they are not
    /// waiting to.
    private var fallbackDue: MonotonicInstant?
    /// Why the fallback sources join when ``fallbackDue`` comes, in words.
    package private(set) var fallbackReason = ""
    /// The latest notable events, for the diagnostics.
    package internal(set) var history: RingBuffer<SynchronizerDiagnostics.Entry>
    /// The clock's status last noted (``noteStatus(_:at:)``).
    var notedStatus: SynchronizationStatus?

    /// A core whose sources' first polls are due at `start`.
    /// - Parameters:
    ///   - sources: The sources' names, in order; a source's index in this list is its identifier.
    ///   - fallbackSources: Sources polled only while the others are silent; their identifiers follow
    ///     those of `sources`.
    ///   - configuration: Polling, budget and triggers.
    ///   - start: When the first requests are due (usually now).
    package init(sources: [String], fallbackSources: [String] = [], configuration: Configuration = .init(), start: MonotonicInstant) {
        self.configuration = configuration
        history = RingBuffer(capacity: configuration.historyLength)
        let count = sources.count + fallbackSources.count
        budget = RequestBudget(
            requestsPerHour: configuration.requestsPerHour, burst: Double(max(8, count * configuration.poll.burstCount)))
        for name in sources { _ = addSource(name, at: start) }
        for name in fallbackSources { _ = addSource(name, role: .fallback, at: start) }
        if !fallbackSources.isEmpty { scheduleFallback(at: start, activation: configuration.fallbackOnActivation) }
    }

    /// Whether the source is a fallback source standing by (not polled until the others fall silent).
    package func isStandingBy(_ source: Int) -> Bool { sources[source]?.standing == .standingBy }

    /// How many sources the core knows, stopped ones included (forgotten ones not).
    package var sourceCount: Int { sources.count }

    /// A source's name (empty for an identifier not in use).
    package func name(of source: Int) -> String { sources[source]?.name ?? "" }

    /// A source's poller: its schedule, reachability and next poll.
    package func poller(of source: Int) -> SourcePoller { sources[source]!.poller }

    /// Adds a source, polled from `now` with a burst (a fallback source stands by).
    /// - Returns: The source's identifier: never one another source had.
    package mutating func addSource(_ name: String, role: Role = .primary, at now: MonotonicInstant) -> Int {
        let identifier = nextIdentifier
        nextIdentifier += 1
        sources[identifier] = Source(
            name: name, role: role, standing: role == .fallback ? .standingBy : .polled,
            poller: SourcePoller(policy: configuration.poll, start: now, unreachableAfter: configuration.unreachableAfter))
        return identifier
    }

    /// Forgets a source for good (its name is to be resolved again, as a new source).
    /// - Returns: Its name.
    @discardableResult
    package mutating func removeSource(_ source: Int) -> String {
        sources.removeValue(forKey: source)?.name ?? ""
    }

    /// What to do at `now`.
    /// - Parameters:
    ///   - now: The current monotonic instant.
    ///   - calibrationAge: How old the clock's calibration is, when it has one: beyond
    ///     ``Configuration/maximumCalibrationAge`` it restarts every burst.
    /// - Returns: The first thing due: a source to remove, resolve or poll (the one due longest,
    ///   then the one polled least recently), the age trigger, or the instant to wait for.
    /// - Complexity: O(n log n) for n sources.
    package mutating func nextAction(at now: MonotonicInstant, calibrationAge: Duration? = nil) -> Action {
        if let maximum = configuration.maximumCalibrationAge, let age = calibrationAge, age > maximum,
            lastAgeTrigger.map({ $0.duration(to: now) >= maximum }) ?? true
        {
            lastAgeTrigger = now
            restartBursts(at: now)
            let reason = "the calibration is \(age) old"
            record([.resynchronizing(reason: reason)], at: now)
            return .resynchronize(reason: reason)
        }
        if let due = fallbackDue, now >= due {
            fallbackDue = nil
            let joining = sources.keys.sorted().filter { sources[$0]!.standing == .standingBy }
            for index in joining {
                sources[index]!.standing = .polled
                sources[index]!.poller.restartBurst(at: now)
            }
            if !joining.isEmpty {
                record([.fallingBack(sources: joining.map(name(of:)), reason: fallbackReason)], at: now)
                return .fallBack(sources: joining)
            }
        }
        let order = sources.keys.filter { sources[$0]!.isPolled && !sources[$0]!.poller.awaitingReply }.sorted { a, b in
            let (left, right) = (sources[a]!, sources[b]!)
            if left.poller.nextPoll != right.poller.nextPoll { return left.poller.nextPoll < right.poller.nextPoll }
            if left.lastPoll != right.lastPoll { return (left.lastPoll?.nanoseconds ?? .min) < (right.lastPoll?.nanoseconds ?? .min) }
            return a < b
        }
        var earliest: MonotonicInstant?
        for index in order {
            switch sources[index]!.poller.nextAction(at: now, budget: &budget) {
            case .send:
                sources[index]!.lastPoll = now
                return .poll(source: index)
            case .resolve:
                return .resolve(source: index)
            case .demobilize:
                sources[index]!.standing = .stopped
                return .remove(source: index)
            case .wait(let until):
                earliest = min(earliest ?? until, until)
            }
        }
        if let due = fallbackDue { earliest = min(earliest ?? due, due) }
        return .wait(until: earliest)
    }

    /// Takes what happened to a source, or a trigger.
    /// - Parameters:
    ///   - event: A measurement's result, a resolved name, or a trigger.
    ///   - now: When it happened; the source's next poll is timed from here.
    ///   - clockError: The clock's error after the samples went in, for `PollPolicy.targetError`;
    ///     `nil`: the interval backs off after every poll.
    ///   - clockErrorAfter: The clock's error a given wait from `now` (its bounds widen with time):
    ///     the next poll comes before it passes the target.
    /// - Returns: What the synchronizer's users hear of it.
    package mutating func handle(
        _ event: Event, at now: MonotonicInstant, clockError: Duration? = nil, clockErrorAfter: ((Duration) -> Duration)? = nil
    ) -> [TimeSynchronizerEvent] {
        let events = take(event, at: now, clockError: clockError, clockErrorAfter: clockErrorAfter)
        record(events, at: now)
        return events
    }

    private mutating func take(
        _ event: Event, at now: MonotonicInstant, clockError: Duration?, clockErrorAfter: ((Duration) -> Duration)?
    ) -> [TimeSynchronizerEvent] {
        switch event {
        case .trigger(let reason, let activation):
            restartBursts(at: now, fallbackAtOnce: activation && configuration.fallbackOnActivation)
            return [.resynchronizing(reason: reason)]
        case .resolved(let index):
            guard sources[index] != nil else { return [] }
            sources[index]!.poller.resolved(at: now)
            history.append(.init(time: now, kind: .resolved(source: name(of: index))))
            return []
        case .samples(let index, let samples):
            guard var source = sources[index] else { return [] }  // forgotten while it was measured
            source.lastSample = samples.last ?? source.lastSample
            source.problem = nil
            source.lastError = nil
            source.lastSuccess = .init(time: now, roundTrip: samples.last.map { .nanoseconds($0.span) }, samples: samples.count)
            source.poller.handle(.sample, at: now, error: clockError, errorAfter: clockErrorAfter)
            sources[index] = source
            if source.role == .primary {
                // The others answer: the fallback sources stand by again.
                fallbackDue = nil
                for other in sources.keys { sources[other]!.standByIfFallback() }
            }
            return [.measured(source: source.name, samples: samples.count)]
        case .failed(let index, let outcome, let refusal, let error):
            guard let name = sources[index]?.name else { return [] }
            let (problem, notice): (Problem, TimeSynchronizerEvent) =
                switch outcome {
                case .unsynchronized: (.unsynchronized, .failed(source: name, error: error))
                case .conflicting: (.conflictingReplies, .conflictingReplies(source: name))
                case .slowDown, .stop: (.kissed(refusal ?? "kiss"), .kissed(source: name, stopped: outcome == .stop))
                case .retryAfter: (.kissed("Retry-After"), .kissed(source: name, stopped: false))
                // A refusal that asks nothing of the schedule (an unknown kiss code) is still shown.
                case .failure, .sample:
                    refusal.map { (.kissed($0), .kissed(source: name, stopped: false)) } ?? (.failed, .failed(source: name, error: error))
                }
            return fail(index, outcome == .sample ? .failure : outcome, problem, error, at: now, notice: notice)
        }
    }

    private mutating func fail(
        _ index: Int, _ outcome: PollOutcome, _ problem: Problem, _ error: String, at now: MonotonicInstant,
        notice: TimeSynchronizerEvent
    ) -> [TimeSynchronizerEvent] {
        sources[index]!.problem = problem
        sources[index]!.lastError = error
        sources[index]!.lastFailure = .init(time: now, reason: error)
        sources[index]!.poller.handle(outcome, at: now)
        if fallbackDue != nil, sources[index]!.role == .primary, pathToEveryPrimaryFailed {
            fallbackDue = now
            fallbackReason = Self.pathFailed
        }
        return [notice] + (silenceToReport().map { [.noSourceAnswered(errors: $0)] } ?? [])
    }

    /// Whether every source still polled that is not a fallback failed its last poll with no usable
    /// reply (none in time, a network error, a rejected datagram; not a server's refusal or an
    /// unsynchronized server: those answered), and none is being measured.
    private var pathToEveryPrimaryFailed: Bool {
        let primaries = sources.values.filter { $0.role == .primary && $0.standing == .polled }
        return !primaries.isEmpty && primaries.allSatisfy { $0.problem == .failed && !$0.poller.awaitingReply }
    }

    /// Restarts the bursts; the fallback sources stand by again, to join if the others stay silent (or
    /// at once).
    private mutating func restartBursts(at now: MonotonicInstant, fallbackAtOnce: Bool = false) {
        for index in sources.keys where sources[index]!.standing != .stopped {
            sources[index]!.poller.restartBurst(at: now)
            sources[index]!.standByIfFallback()
        }
        if sources.values.contains(where: { $0.role == .fallback && $0.standing != .stopped }) {
            scheduleFallback(at: now, activation: fallbackAtOnce)
        }
    }

    /// The fallback sources join at `now` on an activation, else once ``Configuration/fallbackAfter``
    /// has passed with no answer.
    private mutating func scheduleFallback(at now: MonotonicInstant, activation: Bool) {
        fallbackDue = activation ? now : now.advanced(by: configuration.fallbackAfter)
        fallbackReason =
            activation
            ? "the app became active, and only an HTTPS request brings up an idle cellular radio or VPN On Demand"
            : "no other source answered within \(configuration.fallbackAfter.readable)"
    }

    private static let pathFailed = "every other source's last poll brought no usable reply (none in time, a network error, a rejected datagram)"

    /// The last error of every source, once: when each has been asked at least once (fallback sources
    /// included: none stands by) and none has ever answered.
    private mutating func silenceToReport() -> [String: String]? {
        let live = sources.values.filter { $0.standing != .stopped }
        guard !silenceReported, live.allSatisfy({ $0.lastSample == nil && $0.standing == .polled }),
            live.allSatisfy({ $0.poller.polls > 0 && !$0.poller.awaitingReply && $0.lastError != nil })
        else { return nil }
        silenceReported = true
        var errors: [String: String] = [:]
        for source in live { errors[source.name] = source.lastError }
        return errors
    }
}
