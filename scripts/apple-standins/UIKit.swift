// Stand-in for Apple's UIKit (the application notifications this package observes), for
// scripts/apple-typecheck. Declarations written from Apple's documentation (each names its page);
// not Apple's SDK. UIKit exists on iOS, tvOS and watchOS; `UIApplication` is not on watchOS, but this
// package's UIKit code is behind `!os(watchOS)`.
@_exported import AppleFoundation

// https://developer.apple.com/documentation/uikit/uiapplication
@MainActor open class UIApplication {
    // https://developer.apple.com/documentation/uikit/uiapplication/willenterforegroundnotification
    nonisolated public class var willEnterForegroundNotification: NSNotification.Name { .init("UIApplicationWillEnterForegroundNotification") }
    // https://developer.apple.com/documentation/uikit/uiapplication/didenterbackgroundnotification
    nonisolated public class var didEnterBackgroundNotification: NSNotification.Name { .init("UIApplicationDidEnterBackgroundNotification") }
}
