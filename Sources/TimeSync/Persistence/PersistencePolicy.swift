/// When a ``ServerClock`` writes its store: rarely, so that a calibration costs nothing per sample.
///
/// The first calibration is written at once, and so is a significant change (the status changed, or
/// the estimate moved more than ``significantChange``); anything else waits until
/// ``minimumInterval`` has passed since the last write, and then the newest state is written once.
/// Writes run in a background task; ``ServerClock/flush()`` writes at once (call it when the app goes
/// to the background or stops).
package struct PersistencePolicy: Sendable, Hashable {
    /// At most one routine write per this interval. Default 60 s.
    package var minimumInterval: Duration
    /// An estimate that moved more than this since the last write is written at once. Default 10 ms.
    package var significantChange: Duration
    /// Whether writes due at a calibration run in a background task (the default) or on the
    /// calibrating thread (a command-line tool that must not exit before its write, a fuzz harness).
    package var writesInBackground: Bool

    /// Creates a policy.
    package init(minimumInterval: Duration = .seconds(60), significantChange: Duration = .milliseconds(10), writesInBackground: Bool = true) {
        self.minimumInterval = max(.zero, minimumInterval)
        self.significantChange = max(.zero, significantChange)
        self.writesInBackground = writesInBackground
    }

    /// Every calibration written at once (in the background).
    package static let everyCalibration = PersistencePolicy(minimumInterval: .zero, significantChange: .zero)
}
