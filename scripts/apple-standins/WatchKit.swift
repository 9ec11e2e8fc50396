// Stand-in for Apple's WatchKit, for scripts/apple-typecheck: this package uses none of its API
// today; the module exists so that `import WatchKit` type-checks on watchOS.
// https://developer.apple.com/documentation/watchkit
@_exported import AppleFoundation
