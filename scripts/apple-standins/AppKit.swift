// Stand-in for Apple's AppKit, for scripts/apple-typecheck: this package uses none of its API today;
// the module exists so that `import AppKit` type-checks on macOS.
// https://developer.apple.com/documentation/appkit
@_exported import AppleFoundation
