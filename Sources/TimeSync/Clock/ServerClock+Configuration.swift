extension ServerClock {
    /// Settings of a ``ServerClock``.
    package struct Configuration: Sendable, Hashable {
        /// Estimator settings: drift bound, window, source timeout.
        package var estimator: EstimatorConfiguration
        /// A recalibration that moves the estimate by more than this emits
        /// `ServerClockEvent.offsetChanged(by:)`. Default 1 ms.
        package var offsetChangeThreshold: Duration
        /// A wall-clock move against the monotonic clock larger than this emits
        /// `ServerClockEvent.wallClockChanged(by:)`. Default 1 s (NTP slews stay far below it).
        package var wallClockChangeThreshold: Duration
        /// How many sources must agree (and be a majority of those heard) before the clock says
        /// ``SynchronizationStatus/synchronized``; fewer agreeing make it
        /// ``SynchronizationStatus/provisional``. Default 1: a clock fed by one server. With several
        /// servers set it to min(3, servers), so that the first reply alone, which one liar could
        /// send, is never called synchronized.
        package var minimumAgreeingSources: Int {
            didSet { minimumAgreeingSources = max(1, minimumAgreeingSources) }
        }
        /// When the store is written: at once for the first calibration and a significant change,
        /// otherwise at most once a minute, in a background task. `PersistencePolicy.everyCalibration`
        /// writes after every calibration (still in the background).
        package var persistence: PersistencePolicy
        /// The sources whose stored samples are restored; samples of any other source in the store are
        /// not used, but saved again with the clock's own (a run with other sources, such as a
        /// mistyped URL, does not erase what a run with the right ones saved). `nil` (the default)
        /// restores every source. ``TimeSynchronizer`` sets it to its sources' names, so a store
        /// cannot bring in sources nobody configured.
        package var restorableSources: Set<String>?

        /// Creates a configuration.
        package init(
            offsetChangeThreshold: Duration = .milliseconds(1),
            wallClockChangeThreshold: Duration = .seconds(1),
            minimumAgreeingSources: Int = 1,
            persistence: PersistencePolicy = .init(),
            restorableSources: Set<String>? = nil
        ) {
            self.init(
                estimator: .init(), offsetChangeThreshold: offsetChangeThreshold, wallClockChangeThreshold: wallClockChangeThreshold,
                minimumAgreeingSources: minimumAgreeingSources, persistence: persistence, restorableSources: restorableSources)
        }

        /// A configuration with estimator settings of the caller's.
        package init(
            estimator: EstimatorConfiguration,
            offsetChangeThreshold: Duration = .milliseconds(1),
            wallClockChangeThreshold: Duration = .seconds(1),
            minimumAgreeingSources: Int = 1,
            persistence: PersistencePolicy = .init(),
            restorableSources: Set<String>? = nil
        ) {
            self.persistence = persistence
            self.restorableSources = restorableSources
            self.estimator = estimator
            self.offsetChangeThreshold = offsetChangeThreshold
            self.wallClockChangeThreshold = wallClockChangeThreshold
            self.minimumAgreeingSources = max(1, minimumAgreeingSources)
        }
    }
}
