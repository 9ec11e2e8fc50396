#if canImport(UIKit) && !os(watchOS)
import UIKit

extension TimeSynchronizer {
    /// Resynchronizes when the app enters the foreground (its HTTPS fallback sources asked at once,
    /// since only a URLSession request brings up an idle cellular radio) and writes the clock's store
    /// when it goes to the background; a wall-clock change (`NSSystemClockDidChange`) is checked at
    /// once. Keep the returned tokens as long as the synchronizer runs.
    ///
    /// In an app extension, where `UIApplication` posts nothing, the host app's notifications
    /// (`NSExtensionHostWillEnterForeground`, `NSExtensionHostDidEnterBackground`) do the same. A
    /// widget's timeline provider receives neither: call ``resynchronize(reason:)`` when it is asked
    /// for a timeline.
    @MainActor
    public func observeApplicationLifecycle(center: NotificationCenter = .default) -> [any NSObjectProtocol] {
        [
            center.addObserver(forName: UIApplication.willEnterForegroundNotification, object: nil, queue: nil) { [weak self] _ in
                self?.resynchronizeOnActivation(reason: "the app entered the foreground")
            },
            center.addObserver(forName: UIApplication.didEnterBackgroundNotification, object: nil, queue: nil) { [weak self] _ in
                try? self?.clock.flush()
            },
            center.addObserver(forName: .NSExtensionHostWillEnterForeground, object: nil, queue: nil) { [weak self] _ in
                self?.resynchronizeOnActivation(reason: "the extension's host app entered the foreground")
            },
            center.addObserver(forName: .NSExtensionHostDidEnterBackground, object: nil, queue: nil) { [weak self] _ in
                try? self?.clock.flush()
            },
            center.addObserver(forName: .NSSystemClockDidChange, object: nil, queue: nil) { [weak self] _ in
                self?.wallClockMayHaveChanged()
            },
        ]
    }
}
#endif
