#if canImport(Darwin)
import Foundation
#endif
#if canImport(Network) && !os(watchOS)
import Network
#endif

/// The system's hints a started ``TimeSynchronizer`` follows by itself (see
/// `TimeSynchronizer.Configuration.followsSystemEvents`), and what it says of them in diagnostics.
/// The synchronizer holds it while it runs and cancels it when it stops.
package final class SystemEventObservers: @unchecked Sendable {
    // Unchecked: the tokens and the monitor are only read to cancel them, once, under the lock.

    /// What is followed, a line each.
    package let described: [String]
    private let cancelled = Locked(false)
    #if canImport(Darwin)
    private let center: NotificationCenter
    private let tokens: [any NSObjectProtocol]
    #endif
    #if canImport(Network) && !os(watchOS)
    private let monitor: NWPathMonitor
    #endif

    /// Starts following the system's hints for `synchronizer` (held weakly).
    package init(following synchronizer: TimeSynchronizer) {
        var described: [String] = []
        #if canImport(Darwin)
        let center = NotificationCenter.default
        var tokens = [synchronizer.observeSystemClockChanges(center: center)]
        described.append("wall-clock changes (NSSystemClockDidChange)")
        #if canImport(UIKit) && !os(watchOS)
        let lifecycle = synchronizer.observeApplicationLifecycle(center: center)
        tokens += lifecycle.tokens
        described.append(lifecycle.described)
        #endif
        self.center = center
        self.tokens = tokens
        #else
        described.append(
            "no system hints: this platform announces neither wall-clock nor network changes; run ServerClock.monitorWallClock(every:) to hear of the first")
        #endif
        #if canImport(Network) && !os(watchOS)
        monitor = synchronizer.observeNetworkPathChanges()
        described.append("network path changes (NWPathMonitor)")
        #endif
        self.described = described
    }

    /// Stops following; only the first call does anything.
    package func cancel() {
        guard cancelled.withLock({ cancelled in
            defer { cancelled = true }
            return !cancelled
        }) else { return }
        #if canImport(Darwin)
        for token in tokens { center.removeObserver(token) }
        #endif
        #if canImport(Network) && !os(watchOS)
        monitor.cancel()
        #endif
    }

    deinit { cancel() }

    /// WidgetKit's extension point: a widget hears no lifecycle notification.
    package static let widgetExtensionPoint = "com.apple.widgetkit-extension"

    #if canImport(Darwin)
    /// The extension point this process serves (`NSExtensionPointIdentifier` in its Info.plist's
    /// `NSExtension` dictionary), `nil` in an app (a bundle that is not an `.appex`).
    package static var extensionPoint: String? {
        guard Bundle.main.bundlePath.hasSuffix(".appex") else { return nil }
        let info = Bundle.main.infoDictionary?["NSExtension"] as? [String: Any]
        return info?["NSExtensionPointIdentifier"] as? String ?? "an app extension"
    }
    #endif
}
