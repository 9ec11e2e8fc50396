/// Saving a clock's state to its store: the debounce schedule, the background writer, the deferred
/// write and ``ServerClock/flush()``.
///
/// The clock reports each change under its own lock, so that snapshots are numbered in the order of
/// the changes they saw; this decides whether to write now, later or not at all. When a deferred
/// write comes due it calls the clock back, which reports its newest state the same way.
final class ClockPersistence: Sendable {
    private struct State {
        var schedule: PersistenceSchedule
        /// Snapshots handed to the writer, numbered so that an older one never replaces a newer one.
        var snapshots: UInt64 = 0
        /// The task that writes a deferred change, and when it is due; `nil` when none is scheduled.
        var deferredWrite: (due: MonotonicInstant, task: Task<Void, Never>)?
    }

    private let writer: CalibrationWriter
    private let timeBase: any TimeBase
    private let policy: PersistencePolicy
    private let state: Locked<State>

    init(writer: CalibrationWriter, timeBase: any TimeBase, policy: PersistencePolicy) {
        self.writer = writer
        self.timeBase = timeBase
        self.policy = policy
        state = Locked(State(schedule: PersistenceSchedule(policy: policy)))
    }

    /// The clock's state changed: writes now (in the background unless the policy says otherwise)
    /// or schedules one deferred write, which calls `due` when it comes due. Call it under the
    /// clock's lock.
    func changed(_ clock: CalibrationState, at monotonic: MonotonicInstant, due: @escaping @Sendable () -> Void) {
        guard let bootSessionID = timeBase.bootSessionID else { return }
        let step: (PersistedCalibration, UInt64)? = state.withLock { state in
            switch state.schedule.changed(at: monotonic, estimate: clock.estimate(at: monotonic), status: clock.status) {
            case .writeNow:
                return Self.snapshot(&state, clock, at: monotonic, wall: timeBase.wallNow(), bootSessionID: bootSessionID)
            case .writeAt(let instant):
                guard state.deferredWrite == nil else { return nil }
                let task = Task.detached(priority: .utility) { [timeBase] in
                    try? await timeBase.sleep(until: instant, tolerance: SleepTolerance.forWait(monotonic.duration(to: instant)))
                    if !Task.isCancelled { due() }
                }
                state.deferredWrite = (instant, task)
                return nil
            }
        }
        guard let (snapshot, sequence) = step else { return }
        if policy.writesInBackground {
            writer.submit(snapshot, sequence: sequence)
        } else {
            try? writer.write(snapshot, sequence: sequence)  // a failure is a storeFailed event
        }
    }

    /// The deferred write came due: writes the clock's state if a change waits. Call it under the
    /// clock's lock.
    func deferredWriteDue(_ clock: CalibrationState, at monotonic: MonotonicInstant) {
        let step: (PersistedCalibration, UInt64)? = state.withLock { state in
            state.deferredWrite = nil
            guard let bootSessionID = timeBase.bootSessionID,
                state.schedule.deferredWriteDue(at: monotonic, estimate: clock.estimate(at: monotonic), status: clock.status)
            else { return nil }
            return Self.snapshot(&state, clock, at: monotonic, wall: timeBase.wallNow(), bootSessionID: bootSessionID)
        }
        if let (snapshot, sequence) = step { writer.submit(snapshot, sequence: sequence) }
    }

    /// Takes a snapshot now, whatever the schedule, to write on the caller's thread with
    /// ``write(_:)``. Call it under the clock's lock.
    func flushSnapshot(_ clock: CalibrationState, at monotonic: MonotonicInstant) -> (PersistedCalibration, UInt64)? {
        guard let bootSessionID = timeBase.bootSessionID else { return nil }
        return state.withLock { state in
            state.schedule.flushed(at: monotonic, estimate: clock.estimate(at: monotonic), status: clock.status)
            return Self.snapshot(&state, clock, at: monotonic, wall: timeBase.wallNow(), bootSessionID: bootSessionID)
        }
    }

    /// Writes a snapshot on the caller's thread, unless a newer one was written.
    func write(_ snapshot: (PersistedCalibration, UInt64)) throws {
        try writer.write(snapshot.0, sequence: snapshot.1)
    }

    /// Numbers a removal of the store: call it under the clock's lock, then ``remove(superseding:)``
    /// outside it. No snapshot numbered before it is written after the removal.
    func removal() -> UInt64 {
        state.withLock { state in
            state.snapshots += 1
            return state.snapshots
        }
    }

    /// Clears the store.
    func remove(superseding sequence: UInt64) throws {
        try writer.remove(superseding: sequence)
    }

    /// Waits until the background writes queued so far are done; a deferred write already due is
    /// waited for too, one still in the future is not.
    func idle() async {
        if let deferred = state.withLock({ $0.deferredWrite }), timeBase.monotonicNow() >= deferred.due {
            await deferred.task.value
        }
        await writer.idle()
    }

    /// Ends a deferred write still waiting (on a time base that may never reach its instant).
    func cancelDeferredWrite() {
        state.withLock { $0.deferredWrite?.task }?.cancel()
    }

    private static func snapshot(
        _ state: inout State, _ clock: CalibrationState, at monotonic: MonotonicInstant, wall: UnixTime, bootSessionID: String
    ) -> (PersistedCalibration, UInt64) {
        state.snapshots += 1
        var snapshot = PersistedCalibration(
            bootSessionID: bootSessionID, savedAt: monotonic, strategy: clock.initialEstimator.name, calibration: clock.calibration,
            samples: clock.persistedSamples, floor: clock.floor(at: monotonic))
        snapshot.savedAtWallClock = wall
        return (snapshot, state.snapshots)
    }
}
