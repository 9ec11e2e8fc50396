import Foundation
import Testing

/// The core's privacy manifest against its sources: every required-reason API the sources call is
/// declared with a reason, nothing is declared that they do not call, and the package ships it.
@Suite struct PrivacyManifestTests {
    static let root = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Apple's required-reason API categories and the calls that fall in each (the ones a time
    /// library could plausibly make).
    static let categories: [String: [String]] = [
        "NSPrivacyAccessedAPICategoryUserDefaults": ["UserDefaults"],
        "NSPrivacyAccessedAPICategorySystemBootTime": [
            "mach_absolute_time", "mach_continuous_time", "systemUptime", "clock_gettime_nsec_np", "kern.boottime",
        ],
        "NSPrivacyAccessedAPICategoryFileTimestamp": [
            "modificationDate", "creationDate", "contentModificationDate", "getattrlist", "fstat(", "lstat(",
        ],
        "NSPrivacyAccessedAPICategoryDiskSpace": ["volumeAvailableCapacity", "systemFreeSize", "statfs(", "statvfs("],
        "NSPrivacyAccessedAPICategoryActiveKeyboards": ["activeInputModes"],
    ]

    /// The Swift sources of a module without comments.
    static func code(of module: String) throws -> String {
        let directory = root.appendingPathComponent("Sources/\(module)")
        let files = try #require(FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil))
        var text = ""
        for case let url as URL in files where url.pathExtension == "swift" {
            let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n")
            text += lines.filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }.joined(separator: "\n")
        }
        return text
    }

    @Test func theCoreDeclaresExactlyTheRequiredReasonAPIsItUses() throws {
        let data = try Data(contentsOf: Self.root.appendingPathComponent("Sources/TimeSync/PrivacyInfo.xcprivacy"))
        let manifest = try #require(try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
        #expect(manifest["NSPrivacyTracking"] as? Bool == false)
        #expect((manifest["NSPrivacyCollectedDataTypes"] as? [Any])?.isEmpty == true)
        let entries = try #require(manifest["NSPrivacyAccessedAPITypes"] as? [[String: Any]])
        var declared: [String: [String]] = [:]
        for entry in entries {
            let category = try #require(entry["NSPrivacyAccessedAPIType"] as? String)
            let reasons = try #require(entry["NSPrivacyAccessedAPITypeReasons"] as? [String])
            #expect(!reasons.isEmpty, "\(category) without a reason")
            #expect(reasons.allSatisfy { $0.range(of: #"^[0-9A-F]{4}\.[0-9]$"#, options: .regularExpression) != nil }, "\(reasons)")
            declared[category] = reasons
        }
        let code = try Self.code(of: "TimeSync")
        for (category, calls) in Self.categories {
            let used = calls.filter { code.contains($0) }
            if used.isEmpty {
                #expect(declared[category] == nil, "\(category) is declared but no source calls \(calls)")
            } else {
                #expect(declared[category] != nil, "\(category) is used (\(used)) but not declared")
            }
        }
        #expect(Set(declared.keys).isSubset(of: Set(Self.categories.keys)), "\(declared.keys)")
    }

    @Test func thePackageShipsTheManifestAsAResource() throws {
        let package = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        #expect(package.contains(#"resources: [.copy("PrivacyInfo.xcprivacy")]"#))
        // The other library modules call no required-reason API of their own: they need no manifest.
        for module in [
            "TimeSyncHTTP", "TimeSyncNTP", "TimeSyncNTPServer", "TimeSyncNTS", "TimeSyncAsyncHTTPClient", "TimeSyncHummingbird", "TimeSyncSimulation",
            "TimeSyncTesting",
        ] {
            let code = try Self.code(of: module)
            let used = Self.categories.values.flatMap { $0 }.filter { code.contains($0) }
            #expect(used.isEmpty, "\(module) calls \(used): it needs a privacy manifest")
        }
    }
}
