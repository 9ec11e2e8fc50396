extension ServerClock {
    @inline(__always)
    func monotonicNow() -> MonotonicInstant {
        usesSystemClocks ? MonotonicInstant(nanoseconds: SystemClocks.monotonicNanoseconds()) : timeBase.monotonicNow()
    }

    /// The estimated server time now. Before the first calibration: the device's wall clock (never
    /// below a floor kept across a reboot, ``SynchronizationStatus/floorOnly``).
    /// - Complexity: O(1): one monotonic clock read, no allocation, no lock on Linux once calibrated.
    public var now: UnixTime {
        let monotonic = monotonicNow()
        let published = self.published.loadEstimate()
        if published.isUnsynchronized { return reading(at: monotonic).serverTime }
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
            let pair = WallClockPair(monotonic: timeBase.monotonicNow(), wall: timeBase.wallNow())
            let device = pair.wall(at: monotonic)
            let maxDrift = configuration.estimator.maxDrift
            if let floor = state.withLock({ $0.calibration.floor })?.earliest(at: monotonic, maxDrift: maxDrift) {
                return ClockReading(
                    serverTime: max(device, floor), earliest: floor, latest: UnixTime(nanoseconds: .max), status: .floorOnly,
                    monotonicTime: monotonic, calibrationAge: nil)
            }
            return ClockReading(
                serverTime: device, earliest: UnixTime(nanoseconds: .min),
                latest: UnixTime(nanoseconds: .max), status: .unsynchronized, monotonicTime: monotonic, calibrationAge: nil)
        }
        return published.reading(at: monotonic)
    }

    /// Whether server time has certainly reached `instant` now: see
    /// ``ClockReading/hasCertainlyPassed(_:)``. After a reboot, offline, a moment before the floor
    /// the store kept has certainly passed.
    public func hasCertainlyPassed(_ instant: UnixTime) -> Bool { reading().hasCertainlyPassed(instant) }

    /// The published model, `nil` before the first calibration.
    var publishedModel: OffsetModel? {
        let published = self.published.load()
        return published.status == .unsynchronized ? nil : published.model
    }

    /// Whether the clock is synchronized now.
    public var isSynchronized: Bool { published.load().status == .synchronized }

    /// The sources whose samples the estimator holds now (those heard recently), sorted.
    public var sources: [String] { state.withLock { $0.calibration.estimator.sources } }

    /// How many samples of each source the estimator holds now.
    package var sampleCounts: [String: Int] {
        state.withLock { Dictionary($0.calibration.estimator.samples.map { ($0.source, 1) }, uniquingKeysWith: +) }
    }

    /// The samples held as suspects: each contradicts its source's other samples and waits for a
    /// second one to confirm a step.
    package var suspectSamples: [OffsetSample] { state.withLock { $0.calibration.estimator.suspectSamples } }

    /// The current calibration, if any (the last good one while sources disagree).
    package var calibration: Calibration? { state.withLock { $0.calibration.calibration } }

    /// Where the server time now stands relative to a window (a promotion's start and end).
    public func position(in window: Range<UnixTime>) -> WindowPosition { reading().position(in: window) }

    /// One nanosecond: the resolution of ``UnixTime``.
    public var minimumResolution: Duration { .nanoseconds(1) }
}
