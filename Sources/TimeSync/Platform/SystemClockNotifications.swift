#if canImport(Darwin)
import Foundation

extension ServerClock {
    /// Checks the wall clock (``checkWallClock()``) whenever the system announces that the clock
    /// changed (`NSSystemClockDidChange`); keep the returned token while you
    /// want the observation. On Linux, run ``monitorWallClock(every:)`` instead.
    public func observeSystemClockChanges(center: NotificationCenter = .default) -> any NSObjectProtocol {
        center.addObserver(forName: .NSSystemClockDidChange, object: nil, queue: nil) { [weak self] _ in
            self?.checkWallClock()
        }
    }
}
#endif
