#if canImport(Observation)
import Observation
import TimeSync

/// A `ServerClock`'s state for SwiftUI: its latest reading and status, refreshed at a cadence you
/// pick and at once when the clock or its `TimeSynchronizer` reports something, and optionally a
/// countdown to a server time.
///
/// ```swift
/// @State private var model = ServerClockModel(synchronizer: sync)
///
/// var body: some View {
///     Label(model.status.description, systemImage: model.status == .synchronized ? "checkmark" : "clock")
/// }
/// ```
///
/// The model only watches: it neither starts nor stops the synchronizer. Its tasks wait on the
/// clock's `ServerClock.timeBase`, so tests drive it with a hand-moved time base. They end with
/// ``stop()`` or when the model is deallocated.
///
/// A refresh every second suits a status badge or a seconds display. For a display that moves with
/// every frame, read `ServerClock.now` inside a `TimelineView` instead: it costs one monotonic read
/// and takes no lock.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
@MainActor
@Observable
public final class ServerClockModel {
    /// The clock's latest reading: refreshed every ``refreshInterval``, and at once on every event of
    /// the clock or the synchronizer.
    public private(set) var reading: ClockReading
    /// Whether the clock vouches for its time (the status of ``reading``). It is set only when it
    /// changes, so a view that reads only the status is not redrawn at every refresh.
    public private(set) var status: SynchronizationStatus
    /// The latest tick of the countdown started with ``startCountdown(to:tick:untilCertain:)``, `nil` when
    /// none was started. After the final tick (`CountdownTick.isFinished`) it stays at zero.
    public private(set) var countdown: CountdownTick?
    /// What the synchronizer did and will do next, refreshed with ``reading``; `nil` when the model
    /// was made from a clock alone.
    public private(set) var diagnostics: SynchronizerDiagnostics?

    /// The clock watched.
    public let clock: ServerClock
    /// The synchronizer whose events refresh the model, if the model was made from one.
    public let synchronizer: TimeSynchronizer?
    /// How often ``reading`` is refreshed without an event (at least a millisecond).
    public let refreshInterval: Duration

    @ObservationIgnored private var refreshTask: Task<Void, Never>?
    @ObservationIgnored private var eventTasks: [Task<Void, Never>] = []
    @ObservationIgnored private var countdownTask: Task<Void, Never>?
    @ObservationIgnored private var countdownTarget: (deadline: UnixTime, tick: Duration, untilCertain: Bool)?
    @ObservationIgnored private var isStopped = false

    /// A model of a synchronizer's clock, refreshed on the synchronizer's and the clock's events.
    /// - Parameters:
    ///   - synchronizer: The synchronizer; the model does not start it.
    ///   - refreshInterval: How often to refresh ``reading`` between events (default one second; at
    ///     least a millisecond).
    public convenience init(synchronizer: TimeSynchronizer, refreshInterval: Duration = .seconds(1)) {
        self.init(clock: synchronizer.clock, synchronizer: synchronizer, refreshInterval: refreshInterval)
    }

    /// A model of a clock calibrated by other means (an app's own responses), refreshed on the
    /// clock's events.
    /// - Parameters:
    ///   - clock: The clock.
    ///   - refreshInterval: How often to refresh ``reading`` between events (default one second; at
    ///     least a millisecond).
    public convenience init(clock: ServerClock, refreshInterval: Duration = .seconds(1)) {
        self.init(clock: clock, synchronizer: nil, refreshInterval: refreshInterval)
    }

    private init(clock: ServerClock, synchronizer: TimeSynchronizer?, refreshInterval: Duration) {
        let reading = clock.reading()
        self.clock = clock
        self.synchronizer = synchronizer
        self.refreshInterval = max(refreshInterval, .milliseconds(1))
        self.reading = reading
        self.status = reading.status
        diagnostics = synchronizer?.diagnostics()
        // Subscribe before returning, so that no event between now and the tasks' start is missed.
        eventTasks.append(listen(to: clock.events(bufferingNewest: 1)))
        if let synchronizer { eventTasks.append(listen(to: synchronizer.events(bufferingNewest: 1))) }
        refreshTask = refreshing(from: reading.monotonicTime)
    }

    /// Counts down to a server time: from now on ``countdown`` holds the latest tick, computed afresh
    /// after every event. Replaces the countdown running, if any. Does nothing after ``stop()``.
    /// - Parameters:
    ///   - deadline: The server time to count down to.
    ///   - tick: The tick length (default one second): ``countdown`` changes when the remaining time
    ///     crosses a whole multiple of it.
    ///   - untilCertain: Count to the instant the deadline has certainly passed rather than to the estimate.
    public func startCountdown(to deadline: UnixTime, tick: Duration = .seconds(1), untilCertain: Bool = false) {
        guard !isStopped else { return }
        countdownTarget = (deadline, tick, untilCertain)
        countdown = nil
        runCountdown()
    }

    /// Stops the countdown; ``countdown`` becomes `nil`.
    public func cancelCountdown() {
        countdownTarget = nil
        countdownTask?.cancel()
        countdownTask = nil
        countdown = nil
    }

    /// Stops refreshing and counting down; the properties keep their last values. The synchronizer
    /// keeps running.
    public func stop() {
        isStopped = true
        refreshTask?.cancel()
        countdownTask?.cancel()
        for task in eventTasks { task.cancel() }
        refreshTask = nil
        countdownTask = nil
        eventTasks = []
    }

    deinit {
        refreshTask?.cancel()
        countdownTask?.cancel()
        for task in eventTasks { task.cancel() }
    }

    /// Reads the clock now.
    private func refresh() {
        let reading = clock.reading()
        self.reading = reading
        // Compilers whose Observation macro notifies on every assignment would redraw at each refresh.
        if status != reading.status { status = reading.status }
        if let synchronizer { diagnostics = synchronizer.diagnostics() }
    }

    /// Refreshes on each event of `events` (the stream keeps only the newest: one refresh reads
    /// everything that happened before it).
    private func listen<Event: Sendable>(to events: AsyncStream<Event>) -> Task<Void, Never> {
        Task { [weak self] in
            for await _ in events {
                guard let self else { return }
                refresh()
                if countdown?.isFinished != true, countdownTarget != nil { runCountdown() }
            }
        }
    }

    /// Refreshes every ``refreshInterval``, at whole intervals after `start`, skipping those missed
    /// (the device slept).
    private func refreshing(from start: MonotonicInstant) -> Task<Void, Never> {
        let timeBase = clock.timeBase
        let interval = refreshInterval
        return Task { [weak self] in
            var next = start
            while true {
                next = Self.nextRefresh(after: timeBase.monotonicNow(), from: next, every: interval)
                do { try await timeBase.sleep(until: next) } catch { return }
                guard let self else { return }
                refresh()
            }
        }
    }

    /// The first instant `previous` + k · `interval` (k ≥ 1) after `now`.
    nonisolated static func nextRefresh(after now: MonotonicInstant, from previous: MonotonicInstant, every interval: Duration)
        -> MonotonicInstant
    {
        let step = max(1, interval.nanosecondsClamped)
        let elapsed = max(0, now.nanoseconds.saturatingSubtract(previous.nanoseconds))
        let (ahead, overflow) = (elapsed / step + 1).multipliedReportingOverflow(by: step)
        return MonotonicInstant(nanoseconds: previous.nanoseconds.saturatingAdd(overflow ? .max : ahead))
    }

    /// Starts iterating a fresh `Countdown` to the target: its first tick comes at once, so an
    /// event's recalibration shows without waiting for the next tick.
    private func runCountdown() {
        countdownTask?.cancel()
        guard let target = countdownTarget else { return }
        let ticks = clock.countdown(to: target.deadline, tick: target.tick, untilCertain: target.untilCertain)
        countdownTask = Task { [weak self] in
            do {
                for try await tick in ticks {
                    // A replaced countdown's last tick never overwrites its successor's.
                    guard !Task.isCancelled, let self else { return }
                    if countdown != tick { countdown = tick }
                }
            } catch {
                return
            }
        }
    }
}
#endif
