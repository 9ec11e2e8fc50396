#if canImport(UIKit) && !os(watchOS)
import Foundation
import UIKit

extension TimeSynchronizer {
    /// Follows the app's lifecycle: resynchronizes when it enters the foreground (its HTTPS fallback
    /// sources asked at once, since only a URLSession request brings up an idle cellular radio) and
    /// writes the clock's store when it goes to the background.
    ///
    /// In an app extension, where `UIApplication` posts nothing, the host app's notifications
    /// (`NSExtensionHostWillEnterForeground`, `NSExtensionHostDidEnterBackground`) do the same. A
    /// widget hears neither: nothing is observed, and the description says so (its polls still come
    /// due on the monotonic clock, which counts while the widget is not running).
    /// - Returns: The observers' tokens, and what is followed in words (for diagnostics).
    package func observeApplicationLifecycle(center: NotificationCenter) -> (tokens: [any NSObjectProtocol], described: String) {
        let extensionPoint = SystemEventObservers.extensionPoint
        if extensionPoint == SystemEventObservers.widgetExtensionPoint {
            return ([], "no app lifecycle: a widget extension hears neither foreground nor background; call resynchronize(reason:) when its timeline is asked for")
        }
        let inExtension = extensionPoint != nil
        let foreground = inExtension ? Notification.Name.NSExtensionHostWillEnterForeground : UIApplication.willEnterForegroundNotification
        let background = inExtension ? Notification.Name.NSExtensionHostDidEnterBackground : UIApplication.didEnterBackgroundNotification
        let reason = inExtension ? "the extension's host app entered the foreground" : "the app entered the foreground"
        let tokens = [
            center.addObserver(forName: foreground, object: nil, queue: nil) { [weak self] _ in
                self?.resynchronizeOnActivation(reason: reason)
            },
            center.addObserver(forName: background, object: nil, queue: nil) { [weak self] _ in
                try? self?.clock.flush()
            },
        ]
        let described =
            inExtension
            ? "the host app's foreground and background (NSExtensionHostWillEnterForeground, NSExtensionHostDidEnterBackground)"
            : "the app's foreground and background (UIApplication notifications)"
        return (tokens, described)
    }
}
#endif
