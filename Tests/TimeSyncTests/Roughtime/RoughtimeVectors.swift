import Foundation
import Testing

/// The published Roughtime vectors, read where the project's checkout keeps them: the `shared`
/// folder beside the repository (`TIMESYNC_ROUGHTIME_VECTORS` names another place).
enum RoughtimeVectors {
    static var directory: URL {
        if let path = ProcessInfo.processInfo.environment["TIMESYNC_ROUGHTIME_VECTORS"] { return URL(fileURLWithPath: path) }
        // Through symlinks (scripts/tsan links this folder into a package of its own) to the checkout.
        var root = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
        for _ in 0..<4 { root.deleteLastPathComponent() }
        return root.deletingLastPathComponent().appendingPathComponent("shared/roughtime-vectors")
    }

    /// The bytes of a vector file; a missing file fails the test with the path it looked for.
    static func bytes(_ name: String) throws -> [UInt8] {
        let url = directory.appendingPathComponent(name)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            Issue.record("Roughtime vector \(url.path) is missing: the tests read ../shared/roughtime-vectors beside the checkout (or TIMESYNC_ROUGHTIME_VECTORS)")
            throw CocoaError(.fileNoSuchFile)
        }
        return Array(data)
    }

    static func text(_ name: String) throws -> String {
        String(decoding: try bytes(name), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
