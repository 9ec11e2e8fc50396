// Stand-in for Apple's Network framework (the path monitor this package uses), for
// scripts/apple-typecheck. Declarations written from Apple's documentation (each names its page);
// not Apple's SDK. The bodies are never run.
import Dispatch

// https://developer.apple.com/documentation/network/nwinterface
public struct NWInterface: Hashable, Sendable {
    // https://developer.apple.com/documentation/network/nwinterface/name
    public let name: String
}

// https://developer.apple.com/documentation/network/nwpath
public struct NWPath: Equatable, Sendable {
    // https://developer.apple.com/documentation/network/nwpath/status-swift.enum
    public enum Status: Equatable, Hashable, Sendable {
        case satisfied
        case unsatisfied
        case requiresConnection
    }

    // https://developer.apple.com/documentation/network/nwpath/status-swift.property
    public let status: NWPath.Status
    // https://developer.apple.com/documentation/network/nwpath/availableinterfaces
    public let availableInterfaces: [NWInterface]
}

// https://developer.apple.com/documentation/network/nwpathmonitor
public final class NWPathMonitor: @unchecked Sendable {
    // https://developer.apple.com/documentation/network/nwpathmonitor/init()
    public init() {}
    // https://developer.apple.com/documentation/network/nwpathmonitor/pathupdatehandler
    @preconcurrency public final var pathUpdateHandler: (@Sendable (NWPath) -> Void)?
    // https://developer.apple.com/documentation/network/nwpathmonitor/currentpath
    public final var currentPath: NWPath { NWPath(status: .unsatisfied, availableInterfaces: []) }
    // https://developer.apple.com/documentation/network/nwpathmonitor/start(queue:)
    public final func start(queue: DispatchQueue) {}
    // https://developer.apple.com/documentation/network/nwpathmonitor/cancel()
    public final func cancel() {}
}
