// Stand-in for Apple's os module (the unfair lock and the logger this package uses), for
// scripts/apple-typecheck. Declarations written from Apple's documentation (each names its page);
// not Apple's SDK. The bodies are never run.

// https://developer.apple.com/documentation/os/osallocatedunfairlock
// (`@frozen struct OSAllocatedUnfairLock<State>`, Sendable: copies share one lock)
@frozen public struct OSAllocatedUnfairLock<State>: @unchecked Sendable {
    @usableFromInline final class Box { var state: State; init(_ state: State) { self.state = state } }
    @usableFromInline let box: Box

    // https://developer.apple.com/documentation/os/osallocatedunfairlock/init(uncheckedstate:)
    public init(uncheckedState initialState: State) { box = Box(initialState) }
    // https://developer.apple.com/documentation/os/osallocatedunfairlock/withlockunchecked(_:)-7qywq
    public func withLockUnchecked<R>(_ body: (inout State) throws -> R) rethrows -> R { try body(&box.state) }
}

extension OSAllocatedUnfairLock where State: Sendable {
    // https://developer.apple.com/documentation/os/osallocatedunfairlock/init(initialstate:)
    public init(initialState: State) { self.init(uncheckedState: initialState) }
    // https://developer.apple.com/documentation/os/osallocatedunfairlock/withlock(_:)
    // (`func withLock<R>(_ body: @Sendable (inout State) throws -> R) rethrows -> R where R : Sendable`)
    public func withLock<R: Sendable>(_ body: @Sendable (inout State) throws -> R) rethrows -> R { try withLockUnchecked(body) }
}

// https://developer.apple.com/documentation/os/oslogprivacy
public struct OSLogPrivacy: Equatable, Sendable {
    // https://developer.apple.com/documentation/os/oslogprivacy/public
    public static let `public` = OSLogPrivacy(level: 1)
    // https://developer.apple.com/documentation/os/oslogprivacy/private
    public static let `private` = OSLogPrivacy(level: 2)
    // https://developer.apple.com/documentation/os/oslogprivacy/auto
    public static let auto = OSLogPrivacy(level: 0)
    let level: Int
}

// https://developer.apple.com/documentation/os/oslogstringalignment
public struct OSLogStringAlignment: Sendable {
    // https://developer.apple.com/documentation/os/oslogstringalignment/none
    public static let none = OSLogStringAlignment()
}

// https://developer.apple.com/documentation/os/osloginterpolation
@frozen public struct OSLogInterpolation: StringInterpolationProtocol {
    public init(literalCapacity: Int, interpolationCount: Int) {}
    public mutating func appendLiteral(_ literal: String) {}
    // https://developer.apple.com/documentation/os/osloginterpolation/appendinterpolation(_:align:privacy:)-6tazr
    public mutating func appendInterpolation(
        _ argumentString: @autoclosure @escaping () -> String, align: OSLogStringAlignment = .none, privacy: OSLogPrivacy = .auto
    ) {}
    // https://developer.apple.com/documentation/os/osloginterpolation/appendinterpolation(_:align:privacy:)-84m60
    public mutating func appendInterpolation<T: CustomStringConvertible>(
        _ value: @autoclosure @escaping () -> T, align: OSLogStringAlignment = .none, privacy: OSLogPrivacy = .auto
    ) {}
}

// https://developer.apple.com/documentation/os/oslogmessage
public struct OSLogMessage: ExpressibleByStringInterpolation, ExpressibleByStringLiteral {
    public init(stringInterpolation: OSLogInterpolation) {}
    public init(stringLiteral value: String) {}
}

// https://developer.apple.com/documentation/os/oslogtype
public struct OSLogType: Equatable, Sendable {
    public static let `default` = OSLogType(raw: 0)
    public static let info = OSLogType(raw: 1)
    public static let debug = OSLogType(raw: 2)
    public static let error = OSLogType(raw: 16)
    public static let fault = OSLogType(raw: 17)
    let raw: UInt8
}

// https://developer.apple.com/documentation/os/logger
public struct Logger: @unchecked Sendable {
    // https://developer.apple.com/documentation/os/logger/init(subsystem:category:)
    public init(subsystem: String, category: String) {}
    // https://developer.apple.com/documentation/os/logger/init()
    public init() {}
    // https://developer.apple.com/documentation/os/logger/log(level:_:)
    public func log(level: OSLogType, _ message: OSLogMessage) {}
    // https://developer.apple.com/documentation/os/logger/debug(_:)
    public func debug(_ message: OSLogMessage) {}
    // https://developer.apple.com/documentation/os/logger/info(_:)
    public func info(_ message: OSLogMessage) {}
    // https://developer.apple.com/documentation/os/logger/notice(_:)
    public func notice(_ message: OSLogMessage) {}
    // https://developer.apple.com/documentation/os/logger/warning(_:)
    public func warning(_ message: OSLogMessage) {}
    // https://developer.apple.com/documentation/os/logger/error(_:)
    public func error(_ message: OSLogMessage) {}
    // https://developer.apple.com/documentation/os/logger/fault(_:)
    public func fault(_ message: OSLogMessage) {}
}
