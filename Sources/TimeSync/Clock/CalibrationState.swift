/// What a clock knows and what follows from each change: the estimator, the calibration, the status
/// and the events, with no lock, no I/O and no clock of its own (every change names its instant).
///
/// ``ServerClock`` keeps one behind its lock, publishes ``Change/published`` to its readers and sends
/// ``Change/events`` to its subscribers.
package struct CalibrationState: Sendable {
    /// What a change asks the clock to do.
    package struct Change: Sendable {
        /// Events to emit, in order.
        package var events: [ServerClockEvent] = []
        /// A new model for readers, when it changed.
        package var published: PublishedModel?
    }

    /// The estimator a reset returns to.
    package let initialEstimator: any OffsetEstimator
    /// Sources that must agree for ``SynchronizationStatus/synchronized``.
    package let minimumAgreeingSources: Int
    /// A move of the estimate beyond this (nanoseconds) is an `ServerClockEvent.offsetChanged(by:)`.
    package let offsetChangeThreshold: UInt64

    /// Fresh samples only (and the history of sources that confirmed it by answering).
    package private(set) var estimator: any OffsetEstimator
    package private(set) var calibration: Calibration?
    package private(set) var status: SynchronizationStatus = .unsynchronized
    /// Whether ``calibration`` was restored from a store, with no fresh outcome since.
    package private(set) var isRestored = false
    /// Restored samples per source, waiting for the source to answer: then they are offered to the
    /// estimator as history (taken only where they agree with what the source says now).
    package private(set) var history: [String: [OffsetSample]] = [:]
    /// The highest server time the clock vouched for (synchronized) or was handed by its store,
    /// counting on from then: what a reading falls back to without a usable calibration, and what
    /// the store keeps across reboots. A synchronized calibration raises it; one whose `latest` lies
    /// below it lowers it to what that calibration vouches for (`ServerClockEvent.floorLowered(by:reason:)`).
    package private(set) var floor: ServerTimeFloor?
    /// How fast the monotonic clock may run against true time: a floor advances at the slowest.
    package let maxDrift: Double

    package init(estimator: any OffsetEstimator, minimumAgreeingSources: Int, offsetChangeThreshold: Duration, maxDrift: Double = 100e-6) {
        initialEstimator = estimator
        self.estimator = estimator
        self.minimumAgreeingSources = max(1, minimumAgreeingSources)
        self.offsetChangeThreshold = offsetChangeThreshold.nanosecondsClamped.magnitude
        self.maxDrift = maxDrift
    }

    /// The floor at `monotonic`: the held floor advanced to it, or the synchronized calibration's
    /// `earliest` there, whichever is higher; `nil` when the clock has neither.
    package func floor(at monotonic: MonotonicInstant) -> UnixTime? {
        let held = floor?.earliest(at: monotonic, maxDrift: maxDrift)
        guard let vouched = vouchedEarliest(at: monotonic) else { return held }
        return max(held ?? vouched, vouched)
    }

    /// Takes a floor (a store's) that held at `monotonic`: kept only when it is higher than the one
    /// the clock holds there. A lower one comes from an older store, and changes nothing.
    /// - Returns: Whether it was taken.
    @discardableResult
    package mutating func raiseFloor(to earliest: UnixTime, at monotonic: MonotonicInstant) -> Bool {
        if let held = floor(at: monotonic), held >= earliest { return false }
        floor = ServerTimeFloor(earliest: earliest, since: monotonic)
        return true
    }

    /// The synchronized calibration's `earliest` at `monotonic`: what the clock vouches for there.
    private func vouchedEarliest(at monotonic: MonotonicInstant) -> UnixTime? {
        guard status == .synchronized, let calibration else { return nil }
        return PublishedModel(status: status, model: calibration.model).reading(at: monotonic).earliest
    }

    /// Keeps what the synchronized calibration vouches for at `monotonic` in the floor, before the
    /// calibration changes.
    private mutating func keepFloor(at monotonic: MonotonicInstant) {
        if let vouched = vouchedEarliest(at: monotonic) { raiseFloor(to: vouched, at: monotonic) }
    }

    /// Lowers a held floor that the synchronized calibration contradicts: when its `latest` at
    /// `monotonic` lies below the floor there, the floor was raised by a source that was wrong (or a
    /// store from a clock that was), and what the sources say now replaces it.
    /// - Returns: The `ServerClockEvent.floorLowered(by:reason:)` event, or `nil` when the floor holds.
    private mutating func correctFloor(at monotonic: MonotonicInstant) -> ServerClockEvent? {
        guard status == .synchronized, let calibration, let held = floor?.earliest(at: monotonic, maxDrift: maxDrift) else { return nil }
        let reading = PublishedModel(status: status, model: calibration.model).reading(at: monotonic)
        guard reading.latest < held else { return nil }
        floor = ServerTimeFloor(earliest: reading.earliest, since: monotonic)
        let lowered = held.nanoseconds.saturatingSubtract(reading.earliest.nanoseconds)
        let sources = calibration.sources.joined(separator: ", ")
        return .floorLowered(
            by: .nanoseconds(lowered),
            reason: "the synchronized time (from \(sources)) is at most \(reading.latest), below the floor of \(held): the floor came from a source or store that was wrong")
    }

    /// Restored samples of sources this clock does not use (another run's sources, or a source
    /// given under another name): never offered to the estimator, but saved again, so a run with
    /// other sources (a mistyped URL) does not erase what a run with the right ones saved.
    package private(set) var retained: [OffsetSample] = []

    /// The samples to save: the estimator's, the restored history not yet confirmed, and the
    /// retained samples of other sources.
    package var persistedSamples: [OffsetSample] {
        estimator.samples + history.keys.sorted().flatMap { history[$0]! } + retained
    }

    /// Keeps a store's samples of sources this clock does not use, to be saved again: the newest,
    /// at most `limit` of them.
    package mutating func retain(_ samples: [OffsetSample], limit: Int) {
        retained = Array(samples.sorted { $0.time < $1.time }.suffix(max(0, limit)))
    }

    /// The estimate of θ at an instant (0 without a calibration), for the persistence schedule.
    package func estimate(at monotonic: MonotonicInstant) -> Int64 {
        calibration?.offset(at: monotonic).estimate ?? 0
    }

    /// Takes one measurement's fresh samples: one estimator call, one status, one set of events.
    /// The first samples of a source whose samples were restored offer them to the estimator as
    /// history, in the same call.
    package mutating func add(_ samples: [OffsetSample], at monotonic: MonotonicInstant) -> Change {
        guard !samples.isEmpty else { return Change() }
        return apply(at: monotonic) { state in
            let history = Set(samples.map(\.source)).sorted().flatMap { state.history.removeValue(forKey: $0) ?? [] }
            return state.estimator.add(contentsOf: samples, history: history) ?? .noSamples
        }
    }

    /// Forgets a source.
    package mutating func removeSource(_ source: String, at monotonic: MonotonicInstant) -> Change {
        apply(at: monotonic) { state in
            state.history[source] = nil
            return state.estimator.removeSource(source)
        }
    }

    /// Forgets everything, the floor included: back to the initial estimator, unsynchronized.
    package mutating func reset() -> Change {
        var change = Change(published: .unsynchronized)
        if status != .unsynchronized { change.events.append(.statusChanged(from: status, to: .unsynchronized)) }
        estimator = initialEstimator
        calibration = nil
        status = .unsynchronized
        isRestored = false
        history = [:]
        retained = []
        floor = nil
        return change
    }

    /// Takes samples restored from a store. They are computed apart from the estimator, which takes
    /// only fresh samples: what was stored can never outvote what the sources say now. They are kept
    /// as each source's history until it answers.
    package mutating func restore(_ samples: [OffsetSample]) -> Change {
        var replay = initialEstimator
        let result = replay.restore(samples)
        for sample in replay.samples { history[sample.source, default: []].append(sample) }
        guard case .calibrated(let restored) = result else { return Change() }
        calibration = restored
        isRestored = true
        status = status(of: restored)
        return Change(events: [.restored(sources: restored.sources)], published: PublishedModel(status: status, model: restored.model, restored: true))
    }

    /// Applies an estimator change and works out the status, events and model it leads to.
    private mutating func apply(at monotonic: MonotonicInstant, _ body: (inout CalibrationState) -> EstimatorOutcome) -> Change {
        keepFloor(at: monotonic)
        defer { keepFloor(at: monotonic) }
        let sourcesBefore = Set(estimator.sources)
        let outcome = body(&self)
        var change = Change()
        switch outcome {
        case .calibrated(let new), .contradicted(let new):
            let previous = status == .unsynchronized ? nil : calibration
            let contradicted = if case .contradicted = outcome { true } else { false }
            let before = status
            status = contradicted ? .provisional : status(of: new)
            calibration = new
            isRestored = false
            let published = PublishedModel(status: status, model: new.model)
            change.published = published
            change.events.append(.calibrated(published.reading(at: monotonic)))
            if before != status { change.events.append(.statusChanged(from: before, to: status)) }
            if let previous {
                let moved = new.offset(at: monotonic).estimate.saturatingSubtract(previous.offset(at: monotonic).estimate)
                if moved.magnitude > offsetChangeThreshold { change.events.append(.offsetChanged(by: .nanoseconds(moved))) }
            }
        case .noMajority(let sources, let agreeing):
            if let calibration {
                if status != .noMajority { change.events.append(.statusChanged(from: status, to: .noMajority)) }
                status = .noMajority
                change.published = PublishedModel(status: .noMajority, model: calibration.model, restored: isRestored)
            }
            change.events.append(.noMajority(sources: sources, largestAgreeing: agreeing))
        case .noSamples:
            // Every source is gone (removed, or asked not to be used): the last calibration still
            // holds, aging honestly, until new samples come or the clock is reset.
            break
        }
        for source in sourcesBefore.subtracting(estimator.sources).sorted() { change.events.append(.sourceLost(source)) }
        if let lowered = correctFloor(at: monotonic) { change.events.append(lowered) }
        return change
    }

    /// Synchronized when enough sources agree, provisional otherwise.
    private func status(of calibration: Calibration) -> SynchronizationStatus {
        calibration.sources.count >= minimumAgreeingSources ? .synchronized : .provisional
    }
}

extension PublishedModel {
    /// The reading this model gives at a monotonic instant; for a model with a calibration (any
    /// status but unsynchronized).
    @inline(__always)
    package func reading(at monotonic: MonotonicInstant) -> ClockReading {
        let (estimate, bounds) = model.offset(at: monotonic)
        return ClockReading(
            serverTime: UnixTime(nanoseconds: monotonic.nanoseconds.saturatingAdd(estimate)),
            earliest: UnixTime(nanoseconds: monotonic.nanoseconds.saturatingAdd(bounds.lower)),
            latest: UnixTime(nanoseconds: monotonic.nanoseconds.saturatingAdd(bounds.upper)),
            status: status, monotonicTime: monotonic,
            calibrationAge: .nanoseconds(monotonic.nanoseconds.saturatingSubtract(model.time.nanoseconds)),
            isRestored: restored)
    }
}
