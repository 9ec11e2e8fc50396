/// Runs a `SynchronizerCore` on real sources and a real clock: the package's one poll loop, shared
/// by ``TimeSynchronizer`` and the NTP pool source.
///
/// One task asks the core what to do and does it: each poll runs in a task of its own (a slow server
/// never delays another's poll) whose samples go to the clock and whose result goes back to the core;
/// between actions the loop sleeps on the time base until the next one is due, or until a result or a
/// trigger wakes it (``Waiters``).
package final class SynchronizerLoop: Sendable {
    /// A source as the loop sees it.
    package struct Source: Sendable {
        package var name: String
        /// Measures the source once; the samples carry `name`. What an error means for polling is
        /// its code's (`PollOutcome.init(failure:)`).
        package var measure: @Sendable () async throws -> [OffsetSample]

        package init(name: String, measure: @escaping @Sendable () async throws -> [OffsetSample]) {
            self.name = name
            self.measure = measure
        }
    }

    /// What the loop did, for its owner's events and logs.
    package enum Notice: Sendable {
        /// The core's account of a result or a trigger, for a synchronizer's users.
        case events([TimeSynchronizerEvent])
        /// A source's samples went to the clock.
        case measured(name: String, samples: [OffsetSample])
        /// A source's measurement failed; its next poll is `retryIn` away (`nil`: never).
        case failed(name: String, error: any Error, outcome: PollOutcome, retryIn: Duration?)
        /// A source went silent and was removed (when names are not resolved again in place).
        case unreachable(name: String)
        /// A source asked never to be polled again and was removed from the clock.
        case removed(name: String)
    }

    private struct State: Sendable {
        var core: SynchronizerCore
        /// The sources by the core's identifiers.
        var sources: [Int: Source]
        var inFlight: [Int: Task<Void, Never>] = [:]
        /// Counts wake-ups; the loop sleeps until it changes.
        var wakes: UInt64 = 0
        /// The wake count the loop sleeps on, while it sleeps.
        var parked: UInt64?
    }

    /// The clock fed.
    package let clock: ServerClock
    private let state: Locked<State>
    private let waiters = Waiters()
    private let resolvesInPlace: Bool
    private let followsClockError: Bool
    private let onNotice: @Sendable (Notice) -> Void

    /// Creates a loop, not yet running.
    /// - Parameters:
    ///   - clock: The clock the samples go to; its time base times everything.
    ///   - core: The polling state, its sources' names in the order of `sources`.
    ///   - sources: The sources.
    ///   - resolvesInPlace: Whether a silent source keeps being polled (it resolves its name at each
    ///     measurement) rather than removed for its owner to resolve again.
    ///   - followsClockError: Whether the clock's error after each sample steers the intervals.
    ///   - onNotice: Told what happened, from any task.
    package init(
        clock: ServerClock, core: SynchronizerCore, sources: [Source], resolvesInPlace: Bool, followsClockError: Bool,
        onNotice: @escaping @Sendable (Notice) -> Void
    ) {
        self.clock = clock
        state = Locked(State(core: core, sources: Dictionary(uniqueKeysWithValues: sources.enumerated().map { ($0.offset, $0.element) })))
        self.resolvesInPlace = resolvesInPlace
        self.followsClockError = followsClockError
        self.onNotice = onNotice
    }

    /// Whether nothing is in flight and the loop sleeps with no wake-up pending: what a test on a
    /// hand-moved clock waits for before it moves the clock.
    package var isSettled: Bool {
        state.withLock { $0.inFlight.isEmpty && $0.parked == $0.wakes }
    }

    /// What the loop did and will do next; no poll is due unless `polling`.
    package func diagnostics(polling: Bool) -> SynchronizerDiagnostics {
        let view = SynchronizerCore.ClockView(clock)
        let now = clock.timeBase.monotonicNow()
        return state.withLock { state in
            state.core.noteStatus(view.status, at: now)
            var diagnostics = state.core.diagnostics(view, at: now, polling: polling)
            diagnostics.persistence = clock.persistenceNote
            return diagnostics
        }
    }

    /// Adds a source, polled at once with a burst.
    package func add(_ source: Source) {
        let now = clock.timeBase.monotonicNow()
        state.withLock { state in
            state.sources[state.core.addSource(source.name, at: now)] = source
        }
        wake()
    }

    /// Restarts every source's burst, within the budget; an `activation` may bring the fallback
    /// sources in at once (`SynchronizerCore.Configuration.fallbackOnActivation`).
    package func trigger(reason: String, activation: Bool = false) {
        let now = clock.timeBase.monotonicNow()
        let events = state.withLock { $0.core.handle(.trigger(reason: reason, activation: activation), at: now) }
        onNotice(.events(events))
        wake()
    }

    private func wake() {
        state.withLock { $0.wakes &+= 1 }
        waiters.wakeAll()
    }

    /// Polls until the task is cancelled, then cancels the polls in flight and waits for them.
    package func run() async {
        let timeBase = clock.timeBase
        while !Task.isCancelled {
            let now = timeBase.monotonicNow()
            let reading = clock.reading()
            let (action, generation) = state.withLock { state in
                state.core.noteStatus(reading.status, at: now)
                return (state.core.nextAction(at: now, calibrationAge: reading.calibrationAge), state.wakes)
            }
            switch action {
            case .poll(let index):
                state.withLock { state in
                    guard let source = state.sources[index] else { return }
                    state.inFlight[index] = Task { await self.measure(index, source) }
                }
            case .resolve(let index):
                if resolvesInPlace {
                    // Sources resolve their names at each measurement: poll on, at the longest
                    // interval, until it answers.
                    state.withLock { _ = $0.core.handle(.resolved(source: index), at: now) }
                } else {
                    let name = state.withLock { state in
                        state.sources[index] = nil
                        return state.core.removeSource(index)
                    }
                    onNotice(.unreachable(name: name))
                }
            case .remove(let index):
                let name = state.withLock { state in
                    // A synchronizer keeps the stopped source for its status; a pool forgets it
                    // (its name is resolved again, as new sources).
                    guard !resolvesInPlace else { return state.core.name(of: index) }
                    state.sources[index] = nil
                    return state.core.removeSource(index)
                }
                clock.removeSource(name)
                onNotice(.removed(name: name))
            case .resynchronize(let reason):
                onNotice(.events([.resynchronizing(reason: reason)]))
            case .fallBack(let indices):
                let (names, reason) = state.withLock { state in (indices.map { state.core.name(of: $0) }, state.core.fallbackReason) }
                onNotice(.events([.fallingBack(sources: names, reason: reason)]))
            case .wait(let until):
                await sleep(until: until, unlessWokenSince: generation)
            }
        }
        let polls = state.withLock { Array($0.inFlight.values) }
        for poll in polls { poll.cancel() }
        for poll in polls { await poll.value }
    }

    /// Measures one source and gives the result to the clock and the core.
    private func measure(_ index: Int, _ source: Source) async {
        let result: Result<[OffsetSample], any Error>
        do {
            result = .success(try await source.measure())
        } catch is CancellationError {
            state.withLock { _ = $0.inFlight.removeValue(forKey: index) }
            return
        } catch {
            result = .failure(error)
        }
        switch result {
        case .success(let samples):
            let clockEvents = clock.take(samples)
            let now = clock.timeBase.monotonicNow()
            let error = followsClockError ? clock.reading(at: now).error : nil
            let errorAfter: ((Duration) -> Duration)? =
                followsClockError ? { [clock] wait in clock.reading(at: now.advanced(by: wait)).error } : nil
            let status = clock.reading(at: now).status
            let events = state.withLock { state in
                state.inFlight[index] = nil
                let events = state.core.handle(.samples(source: index, samples), at: now, clockError: error, clockErrorAfter: errorAfter)
                state.core.noteClockEvents(clockEvents, at: now)
                state.core.noteStatus(status, at: now)
                return events
            }
            wake()
            onNotice(.measured(name: source.name, samples: samples))
            onNotice(.events(events))
        case .failure(let error):
            clock.reject(source: source.name, reason: ErrorMessage.of(error))
            let outcome = PollOutcome(failure: error)
            let now = clock.timeBase.monotonicNow()
            let (events, next) = state.withLock { state in
                state.inFlight[index] = nil
                let events = state.core.handle(Self.event(index, error: error, outcome: outcome), at: now)
                return (events, state.core.poller(of: index).nextPoll)
            }
            wake()
            let retryIn = outcome == .stop ? nil : now.duration(to: next)
            onNotice(.failed(name: source.name, error: error, outcome: outcome, retryIn: retryIn))
            onNotice(.events(events))
        }
    }

    /// What a failed measurement tells the core.
    static func event(_ index: Int, error: any Error, outcome: PollOutcome) -> SynchronizerCore.Event {
        .failed(source: index, outcome: outcome, refusal: (error as? any CodedError)?.refusalCode, error: ErrorMessage.of(error))
    }

    /// Sleeps until `deadline` (forever when `nil`), or until a wake-up after `generation`.
    /// The wait is for the next poll, which may come a little late: it asks for
    /// ``SleepTolerance/forWait(_:)`` of leeway, so the system can group the wake-up with others.
    private func sleep(until deadline: MonotonicInstant?, unlessWokenSince generation: UInt64) async {
        let state = self.state
        state.withLock { $0.parked = generation }
        let tolerance = deadline.map { SleepTolerance.forWait(clock.timeBase.monotonicNow().duration(to: $0)) } ?? .zero
        await waiters.wait(
            until: { state.withLock { $0.wakes != generation } }, orUntil: deadline, on: clock.timeBase, tolerance: tolerance)
        state.withLock { $0.parked = nil }
    }
}
