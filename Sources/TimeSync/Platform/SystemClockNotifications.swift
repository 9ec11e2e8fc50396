#if canImport(Darwin)
import Foundation

extension TimeSynchronizer {
    /// Checks the wall clock whenever the system announces that it changed (`NSSystemClockDidChange`):
    /// a jump is reported (`TimeSynchronizerEvent.wallClockChanged(by:)`) and starts a
    /// resynchronization. Remove the returned token from `center` to stop.
    package func observeSystemClockChanges(center: NotificationCenter) -> any NSObjectProtocol {
        center.addObserver(forName: .NSSystemClockDidChange, object: nil, queue: nil) { [weak self] _ in
            self?.wallClockMayHaveChanged()
        }
    }
}
#endif
