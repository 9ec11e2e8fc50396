extension TimeSynchronizer {
    /// Settings.
    public struct Configuration: Sendable {
        /// The error (half the width of the clock's bounds) to keep: polling speeds up while the
        /// error is above it or would pass it before the next poll, and slows down while it stays
        /// well below. Default 250 ms: with the slew allowed to a server (up to 128 ms, the most an
        /// NTP server's clock steers away while it corrects) polling backs off to its maximum,
        /// 1024 s; a smaller target polls more often to keep the bounds tighter (50 ms: every 64 s);
        /// `nil`: no target, each source backs off after every sample.
        public var targetError: Duration? {
            get { poll.targetError }
            set { poll.targetError = newValue.map { max(.nanoseconds(1), $0) } }
        }
        /// Burst and interval limits of each source, and the target error.
        package var poll: PollPolicy
        /// The shortest interval between two polls of one source once its burst is over (default
        /// 16 s, the least it can be); a `RATE` kiss or a `Retry-After` can only lengthen it.
        public var minimumPollInterval: Duration {
            get { poll.minimumInterval }
            set { poll.minimumInterval = max(PollPolicy.pollFloor, newValue) }
        }
        /// The longest interval between two polls of one source (default 1024 s).
        public var maximumPollInterval: Duration {
            get { poll.maximumInterval }
            set { poll.maximumInterval = max(poll.minimumInterval, newValue) }
        }
        /// The most requests per hour over all sources; `nil` for no cap. For mobile apps.
        public var requestsPerHour: Double?
        /// Each measurement's deadline, for the whole exchange. Default 5 s.
        public var timeout: Duration
        /// A calibration older than this restarts polling with a burst. Default 1 hour.
        public var maximumCalibrationAge: Duration
        /// How many sources must agree for `synchronized`; `nil` for min(3, sources).
        public var minimumAgreeingSources: Int?
        /// When the clock's store is written.
        package var persistence: PersistencePolicy
        /// The clock's estimator settings: drift bound, slew allowance, window.
        package var estimator: EstimatorConfiguration
        /// How long the fallback sources wait for another source to answer, after the start or a
        /// resynchronization, before they are polled. Default 5 s. They join sooner when every other
        /// source's last poll failed on the way (no route, a network error), and on iOS, tvOS and
        /// watchOS at the start and when the app comes to the foreground, where only a URLSession
        /// request wakes an idle cellular radio.
        public var fallbackAfter: Duration
        /// Whether a started synchronizer follows the system's hints that its calibration may be
        /// stale by itself (default `true`): on Apple platforms the app's foreground (or, in an app
        /// extension, its host app's), the network path and wall-clock changes; it writes the store
        /// when the app goes to the background. `SynchronizerDiagnostics.observing` says what it
        /// listens to. Off, the app calls ``TimeSynchronizer/resynchronize(reason:)`` itself.
        public var followsSystemEvents = true

        /// Creates a configuration.
        public init(
            targetError: Duration? = .milliseconds(250), requestsPerHour: Double? = nil, timeout: Duration = .seconds(5),
            maximumCalibrationAge: Duration = .seconds(3600), minimumAgreeingSources: Int? = nil, fallbackAfter: Duration = .seconds(5)
        ) {
            self.init(
                targetError: targetError, poll: .init(), requestsPerHour: requestsPerHour, timeout: timeout,
                maximumCalibrationAge: maximumCalibrationAge, minimumAgreeingSources: minimumAgreeingSources, persistence: .init(),
                estimator: .init(), fallbackAfter: fallbackAfter)
        }

        /// A configuration with polling, persistence or estimator settings of the caller's.
        package init(
            targetError: Duration? = .milliseconds(250), poll: PollPolicy, requestsPerHour: Double? = nil,
            timeout: Duration = .seconds(5), maximumCalibrationAge: Duration = .seconds(3600),
            minimumAgreeingSources: Int? = nil, persistence: PersistencePolicy = .init(), estimator: EstimatorConfiguration = .init(),
            fallbackAfter: Duration = .seconds(5)
        ) {
            self.fallbackAfter = fallbackAfter
            self.estimator = estimator
            var poll = poll
            poll.targetError = targetError.map { max(.nanoseconds(1), $0) }
            self.poll = poll
            self.requestsPerHour = requestsPerHour
            self.timeout = timeout
            self.maximumCalibrationAge = maximumCalibrationAge
            self.minimumAgreeingSources = minimumAgreeingSources
            self.persistence = persistence
        }
    }
}
