extension SynchronizerCore {
    /// What the clock says about the sources, for `SynchronizerCore.statuses(_:)`.
    package struct ClockView: Sendable, Hashable {
        /// The clock's status now.
        package var status: SynchronizationStatus
        /// The sources its calibration follows.
        package var selected: Set<String>
        /// The sources it holds samples of.
        package var heard: Set<String>
        /// The samples it holds as suspects.
        package var suspects: Set<OffsetSample>
        /// The wall clock read with the monotonic clock: turns a sample's offset into server time −
        /// this device's wall clock.
        package var pair: WallClockPair
        /// How old the clock's calibration is, `nil` before the first.
        package var calibrationAge: Duration?
        /// How many samples of each source the clock's estimator holds.
        package var sampleCounts: [String: Int] = [:]

        /// Creates a view.
        package init(
            status: SynchronizationStatus, selected: Set<String>, heard: Set<String>, suspects: Set<OffsetSample>,
            wallShift: Int64
        ) {
            self.status = status
            self.selected = selected
            self.heard = heard
            self.suspects = suspects
            pair = WallClockPair(monotonic: MonotonicInstant(nanoseconds: 0), wall: UnixTime(nanoseconds: wallShift))
        }

        /// The view of `clock` now.
        package init(_ clock: ServerClock) {
            let reading = clock.reading()
            self.init(
                status: reading.status, selected: Set(clock.calibration?.sources ?? []), heard: Set(clock.sources),
                suspects: Set(clock.suspectSamples), wallShift: 0)
            pair = clock.timeBase.wallClockPair()
            calibrationAge = reading.calibrationAge
            sampleCounts = clock.sampleCounts
        }
    }

    /// Each source's state, in index order: a kiss, an unsynchronized server or conflicting replies
    /// as its last poll said; otherwise `unreachable` after a burst's worth of polls (at most eight)
    /// without a reply, `suspect` while its last sample is held, `selected` while the clock follows
    /// it, `unselected` while the sources have no majority, `falseticker` when it answered but is not
    /// followed, `pending` before it answered; a fallback source not polled now is `standingBy`
    /// unless the clock still follows it.
    package func statuses(_ clock: ClockView) -> [SourceStatus] {
        // Sources are selected only while a majority stands behind the calibration now.
        let current = clock.status == .synchronized || clock.status == .provisional
        let selected = current ? clock.selected : []
        return sources.keys.sorted().map { sources[$0]! }.map { known in
            let offset = known.lastSample.map { Duration.nanoseconds(clock.pair.wallOffset(estimate: $0.offset.midpoint, bounds: $0.offset).estimate) }
            let state: SourceStatus.State
            var kissCode: String?
            switch known.problem {
            case .kissed(let code):
                state = .kissed
                kissCode = code
            case .unsynchronized:
                state = .unsynchronized
            case .conflictingReplies:
                state = .conflictingReplies
            case .failed, nil:
                if known.standing == .standingBy && !selected.contains(known.name) {
                    state = .standingBy
                } else if known.poller.isUnreachable {
                    state = .unreachable
                } else if let last = known.lastSample, clock.suspects.contains(last) {
                    state = .suspect
                } else if selected.contains(known.name) {
                    state = .selected
                } else if !current, clock.heard.contains(known.name) {
                    state = .unselected
                } else if clock.heard.contains(known.name) || known.lastSample != nil {
                    state = .falseticker
                } else {
                    state = .pending
                }
            }
            return SourceStatus(
                source: known.name, state: state, wallClockOffset: offset, kissCode: kissCode, lastSampleTime: known.lastSample?.time)
        }
    }
}
