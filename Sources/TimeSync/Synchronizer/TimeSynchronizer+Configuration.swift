extension TimeSynchronizer {
    /// Settings.
    public struct Configuration: Sendable {
        /// The error (half the width of the clock's bounds) to keep: polling speeds up while the
        /// error is above it and slows down while it is well below. Default 50 ms.
        public var targetError: Duration
        /// Burst and interval limits of each source.
        public var poll: PollPolicy
        /// The most requests per hour over all sources; `nil` for no cap. For mobile apps.
        public var requestsPerHour: Double?
        /// Each measurement's deadline, for the whole exchange. Default 5 s.
        public var timeout: Duration
        /// A calibration older than this restarts polling with a burst. Default 1 hour.
        public var maximumCalibrationAge: Duration
        /// How many sources must agree for `synchronized`; `nil` for min(3, sources).
        public var minimumAgreeingSources: Int?
        /// When the clock's store is written.
        public var persistence: PersistencePolicy

        /// Creates a configuration.
        public init(
            targetError: Duration = .milliseconds(50), poll: PollPolicy = .init(), requestsPerHour: Double? = nil,
            timeout: Duration = .seconds(5), maximumCalibrationAge: Duration = .seconds(3600),
            minimumAgreeingSources: Int? = nil, persistence: PersistencePolicy = .init()
        ) {
            self.targetError = targetError
            self.poll = poll
            self.requestsPerHour = requestsPerHour
            self.timeout = timeout
            self.maximumCalibrationAge = maximumCalibrationAge
            self.minimumAgreeingSources = minimumAgreeingSources
            self.persistence = persistence
        }
    }
}
