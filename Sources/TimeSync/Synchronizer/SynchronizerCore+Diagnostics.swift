/// What the core did and will do next, for ``SynchronizerDiagnostics``.
extension SynchronizerCore {
    /// Keeps events in the history, at `now`.
    mutating func record(_ events: [TimeSynchronizerEvent], at now: MonotonicInstant) {
        for event in events { history.append(.init(time: now, kind: .event(event))) }
    }

    /// Keeps the clock's events that diagnostics report (a lowered floor) in the history, at `now`.
    package mutating func noteClockEvents(_ events: [ServerClockEvent], at now: MonotonicInstant) {
        for case .floorLowered(let by, let reason) in events {
            history.append(.init(time: now, kind: .floorLowered(by: by, reason: reason)))
        }
    }

    /// Notes the clock's status at `now`: a change from the status last noted goes into the history
    /// (the first status noted is only remembered).
    package mutating func noteStatus(_ status: SynchronizationStatus, at now: MonotonicInstant) {
        defer { notedStatus = status }
        guard let noted = notedStatus, noted != status else { return }
        history.append(.init(time: now, kind: .statusChanged(status)))
    }

    /// The diagnostics at `now`.
    /// - Parameters:
    ///   - clock: What the clock says (its status, age and samples).
    ///   - now: The current monotonic instant: the next poll's wait is measured from it.
    ///   - polling: Whether the driver is running; when not, no poll is due.
    /// - Returns: The clock's status and age, each source in index order, the next poll and the history.
    /// - Complexity: O(n log n) for n sources, plus the history's length.
    package func diagnostics(_ clock: ClockView, at now: MonotonicInstant, polling: Bool = true) -> SynchronizerDiagnostics {
        let statuses = statuses(clock)
        var next: SynchronizerDiagnostics.NextPoll?
        let list = zip(sources.keys.sorted(), statuses).map { index, status in
            let known = sources[index]!
            let poller = known.poller
            let due = polling && known.isPolled && !poller.isStopped && !poller.awaitingReply
            if due, next.map({ poller.nextPoll < $0.time }) ?? true {
                next = .init(
                    source: known.name, time: poller.nextPoll, wait: max(.zero, now.duration(to: poller.nextPoll)),
                    reason: poller.nextPollReason)
            }
            return SourceDiagnostics(
                source: known.name, state: status.state, wallClockOffset: status.wallClockOffset, lastSampleTime: status.lastSampleTime,
                refusal: status.kissCode, polls: poller.polls, reachability: poller.reachability,
                lastSuccess: known.lastSuccess, lastFailure: known.lastFailure,
                clockSamples: clock.sampleCounts[known.name] ?? 0, nextPoll: due ? poller.nextPoll : nil,
                nextPollCause: due ? poller.nextPollReason : nil)
        }
        return SynchronizerDiagnostics(
            status: clock.status, calibrationAge: clock.calibrationAge, nextPoll: next, sources: list, history: history.elements)
    }
}
