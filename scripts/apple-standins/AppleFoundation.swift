// Stand-in for what Apple's Foundation has and swift-corelibs-foundation on Linux lacks, for
// scripts/apple-typecheck (implicitly imported into every checked file). Declarations written from
// Apple's documentation (each names its page); not Apple's SDK.

// On Apple platforms Foundation itself has URLSession, URLRequest and HTTPURLResponse; on Linux they
// are in FoundationNetworking.
// https://developer.apple.com/documentation/foundation/urlsession
@_exported import Foundation
@_exported import FoundationNetworking
// Apple's Foundation re-exports Darwin (the stand-in: Glibc and Darwin's own declarations), as
// Linux's re-exports Glibc.
@_exported import Darwin

// CoreFoundation's types, which Apple's Foundation re-exports. Linux has no bridged CF types: these
// stand in as the Foundation classes they are toll-free bridged with (CFString with NSString,
// CFDictionary with NSDictionary), so `[String: Any] as CFDictionary` and `kSecClass as String`
// type-check as on Apple platforms.
// https://developer.apple.com/documentation/corefoundation/cftyperef
public typealias CFTypeRef = AnyObject
// https://developer.apple.com/documentation/corefoundation/cfstring
public typealias CFString = NSString
// https://developer.apple.com/documentation/corefoundation/cfdictionary
public typealias CFDictionary = NSDictionary

extension NSNotification.Name {
    // https://developer.apple.com/documentation/foundation/nsnotification/name-swift.struct/nssystemclockdidchange
    public static let NSSystemClockDidChange = NSNotification.Name("NSSystemClockDidChangeNotification")
    // https://developer.apple.com/documentation/foundation/nsnotification/name-swift.struct/nsextensionhostwillenterforeground
    // (iOS 8.2, tvOS 9)
    public static let NSExtensionHostWillEnterForeground = NSNotification.Name("NSExtensionHostWillEnterForegroundNotification")
    // https://developer.apple.com/documentation/foundation/nsnotification/name-swift.struct/nsextensionhostdidenterbackground
    public static let NSExtensionHostDidEnterBackground = NSNotification.Name("NSExtensionHostDidEnterBackgroundNotification")
}

extension FileManager {
    // https://developer.apple.com/documentation/foundation/filemanager/containerurl(forsecurityapplicationgroupidentifier:)
    // (iOS 7, macOS 10.8, tvOS 9, watchOS 2)
    public func containerURL(forSecurityApplicationGroupIdentifier groupIdentifier: String) -> URL? { nil }
}
