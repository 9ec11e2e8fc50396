import Foundation
import Testing

/// The privacy manifests against the code: in every library target, the calls to Apple's
/// required-reason APIs that an Apple platform compiles (outside `#if os(Linux)` and the like) are
/// found by name; a module that makes one ships a manifest declaring its category with a reason, and
/// no manifest declares a category its module does not use.
@Suite struct PrivacyManifestTests {
    static let root = Repository.root

    /// Apple's required-reason API categories and the names that fall in each, as called from Swift.
    static let categories: [String: [String]] = [
        "NSPrivacyAccessedAPICategoryUserDefaults": ["UserDefaults"],
        "NSPrivacyAccessedAPICategorySystemBootTime": [
            "mach_absolute_time", "mach_continuous_time", "systemUptime", "clock_gettime_nsec_np", "kern.boottime", "KERN_BOOTTIME",
        ],
        "NSPrivacyAccessedAPICategoryFileTimestamp": [
            "stat", "fstat", "lstat", "fstatat", "getattrlist", "getattrlistbulk", "fgetattrlist", "getattrlistat",
            "attributesOfItem", "creationDate", "modificationDate", "contentModificationDate", "creationDateKey",
            "contentModificationDateKey", "fileModificationDate",
        ],
        "NSPrivacyAccessedAPICategoryDiskSpace": [
            "statfs", "statvfs", "fstatfs", "fstatvfs", "getattrlist", "volumeAvailableCapacity", "volumeAvailableCapacityKey",
            "volumeAvailableCapacityForImportantUsageKey", "volumeTotalCapacityKey", "systemFreeSize", "systemSize",
            "attributesOfFileSystem",
        ],
        "NSPrivacyAccessedAPICategoryActiveKeyboards": ["activeInputModes"],
    ]

    static let applePlatforms = ["macOS", "iOS", "tvOS", "watchOS"]

    /// One use of a required-reason API.
    struct Use: CustomStringConvertible {
        var file: String
        var line: Int
        var name: String
        var platforms: [String]
        var description: String { "\(file):\(line) \(name) (\(platforms.joined(separator: ", ")))" }
    }

    /// The library targets: every folder of `Sources` with Swift files, but the executable.
    static func libraryModules() throws -> [String] {
        let sources = root.appendingPathComponent("Sources").path
        return try FileManager.default.contentsOfDirectory(atPath: sources).sorted().filter { module in
            module != "timesync" && (FileManager.default.enumerator(atPath: "\(sources)/\(module)")?.contains { ($0 as? String)?.hasSuffix(".swift") == true } ?? false)
        }
    }

    /// Every use in one module's Swift sources, with the Apple platforms that compile it.
    static func uses(in module: String) throws -> [Use] {
        let directory = root.appendingPathComponent("Sources/\(module)")
        let files = try #require(FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil))
        let names = Set(categories.values.flatMap { $0 })
        var found: [Use] = []
        for case let url as URL in files where url.pathExtension == "swift" {
            let text = try String(contentsOf: url, encoding: .utf8)
            let compiled = Dictionary(uniqueKeysWithValues: applePlatforms.map { ($0, ConditionalCompilation.compiledLines(of: text, on: $0)) })
            for (index, line) in SwiftCode.withoutCommentsAndStrings(text).enumerated() {
                let platforms = applePlatforms.filter { compiled[$0]![index] }
                guard !platforms.isEmpty else { continue }
                for name in names where SwiftCode.mentions(name, in: line) {
                    let path = url.resolvingSymlinksInPath().path
                    let file = path.hasPrefix(root.path + "/") ? String(path.dropFirst(root.path.count + 1)) : path
                    found.append(Use(file: file, line: index + 1, name: name, platforms: platforms))
                }
            }
        }
        return found
    }

    /// The categories a manifest declares, each with its reasons.
    static func declared(in manifest: URL) throws -> [String: [String]] {
        let data = try Data(contentsOf: manifest)
        let plist = try #require(try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
        #expect(plist["NSPrivacyTracking"] as? Bool == false)
        #expect((plist["NSPrivacyCollectedDataTypes"] as? [Any])?.isEmpty == true)
        var declared: [String: [String]] = [:]
        for entry in try #require(plist["NSPrivacyAccessedAPITypes"] as? [[String: Any]]) {
            let category = try #require(entry["NSPrivacyAccessedAPIType"] as? String)
            let reasons = try #require(entry["NSPrivacyAccessedAPITypeReasons"] as? [String])
            #expect(!reasons.isEmpty, "\(category) without a reason")
            #expect(reasons.allSatisfy { $0.wholeMatch(of: /[0-9A-F]{4}\.[0-9]/) != nil }, "\(category): \(reasons)")
            declared[category] = reasons
        }
        return declared
    }

    @Test func everyModuleDeclaresExactlyTheRequiredReasonAPIsItUses() throws {
        let package = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let modules = try Self.libraryModules()
        #expect(modules.contains("TimeSync") && modules.contains("TimeSyncNTP") && modules.contains("TimeSyncHTTP"), "\(modules)")
        for module in modules {
            let uses = try Self.uses(in: module)
            let manifest = Self.root.appendingPathComponent("Sources/\(module)/PrivacyInfo.xcprivacy")
            guard FileManager.default.fileExists(atPath: manifest.path) else {
                #expect(uses.isEmpty, "\(module) calls required-reason APIs but ships no PrivacyInfo.xcprivacy: \(uses)")
                continue
            }
            let declared = try Self.declared(in: manifest)
            for category in Self.categories.keys.sorted() {
                // A name in two categories (getattrlist) counts for both.
                let usedHere = uses.filter { Self.categories[category]!.contains($0.name) }
                if usedHere.isEmpty {
                    #expect(declared[category] == nil, "\(module): \(category) is declared, but no code an Apple platform compiles calls \(Self.categories[category]!)")
                } else {
                    #expect(declared[category] != nil, "\(module): \(category) is used but not declared: \(usedHere)")
                }
            }
            #expect(Set(declared.keys).isSubset(of: Set(Self.categories.keys)), "\(module): unknown categories \(declared.keys.sorted())")
            #expect(package.contains(#"resources: [.copy("PrivacyInfo.xcprivacy")]"#), "\(module) has a manifest that Package.swift does not ship")
        }
    }

    @Test func theCoresUsesAreFoundWithTheirPlatforms() throws {
        // The scan itself: the core's known uses are seen, on the platforms that compile them.
        let uses = try Self.uses(in: "TimeSync")
        let userDefaults = try #require(uses.first { $0.name == "UserDefaults" })
        #expect(userDefaults.platforms == Self.applePlatforms)
        let fstat = try #require(uses.first { $0.name == "fstat" && $0.file.hasSuffix("FileCalibrationStore.swift") }, "the store file's check")
        #expect(fstat.platforms == Self.applePlatforms, "the file store is compiled on every Apple platform")
        #expect(!uses.contains { $0.file.hasSuffix("PrivacyManifestTests.swift") })
    }

    @Test(arguments: [
        ("#if os(Linux)\nstat(x)\n#endif\n", [String]()),
        ("#if canImport(Darwin)\nstat(x)\n#endif\n", ["macOS", "iOS", "tvOS", "watchOS"]),
        ("#if !canImport(Darwin) || os(macOS)\nstat(x)\n#endif\n", ["macOS"]),
        ("#if canImport(Glibc)\nx\n#elseif canImport(Darwin)\nstat(x)\n#endif\n", ["macOS", "iOS", "tvOS", "watchOS"]),
        ("#if canImport(UIKit) && !os(watchOS)\nstat(x)\n#else\ny\n#endif\n", ["iOS", "tvOS"]),
        ("#if os(iOS)\n#if os(macOS)\nz\n#endif\nstat(x)\n#endif\n", ["iOS"]),
    ])
    func conditionalCompilationIsEvaluatedPerPlatform(source: String, platforms: [String]) {
        let line = source.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.hasPrefix("stat(") }!
        #expect(Self.applePlatforms.filter { ConditionalCompilation.compiledLines(of: source, on: $0)[line] } == platforms)
    }

    @Test func commentsAndStringsAreNotCalls() {
        let lines = SwiftCode.withoutCommentsAndStrings("/// calls stat()\nlet a = \"UserDefaults\" // UserDefaults\n/* fstat(\n */ lstat(x)")
        #expect(!SwiftCode.mentions("stat", in: lines[0]))
        #expect(!SwiftCode.mentions("UserDefaults", in: lines[1]))
        #expect(!SwiftCode.mentions("fstat", in: lines[2]))
        #expect(SwiftCode.mentions("lstat", in: lines[3]))
        #expect(!SwiftCode.mentions("stat", in: "fstat(x)"), "a name inside another is not a use")
    }
}

/// Which lines of a Swift file an Apple platform compiles: `#if`/`#elseif`/`#else`/`#endif` with
/// `os()`, `canImport()`, `!`, `&&`, `||` and parentheses; a package trait or other flag counts as set.
enum ConditionalCompilation {
    static func canImport(_ module: String, on platform: String) -> Bool {
        switch module {
        case "Glibc", "Musl", "Android", "WinSDK", "FoundationNetworking", "Bionic", "WASILibc": false
        case "UIKit": platform == "iOS" || platform == "tvOS"
        case "AppKit": platform == "macOS"
        case "WatchKit": platform == "watchOS"
        default: true
        }
    }

    static func compiledLines(of text: String, on platform: String) -> [Bool] {
        // Each open #if: whether its enclosing region is compiled, whether a branch was taken, whether the current one is.
        var stack: [(outer: Bool, taken: Bool, active: Bool)] = []
        var compiled: [Bool] = []
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            let here = stack.last.map { $0.outer && $0.active } ?? true
            if line.hasPrefix("#if ") {
                let value = evaluate(String(line.dropFirst(4)), on: platform)
                stack.append((here, value, value))
                compiled.append(false)
            } else if line.hasPrefix("#elseif "), var top = stack.popLast() {
                let value = !top.taken && evaluate(String(line.dropFirst(8)), on: platform)
                top.active = value
                top.taken = top.taken || value
                stack.append(top)
                compiled.append(false)
            } else if line.hasPrefix("#else"), var top = stack.popLast() {
                top.active = !top.taken
                top.taken = true
                stack.append(top)
                compiled.append(false)
            } else if line.hasPrefix("#endif") {
                _ = stack.popLast()
                compiled.append(false)
            } else {
                compiled.append(here)
            }
        }
        return compiled
    }

    /// Evaluates a condition: `||` of `&&` of (`!`)terms.
    static func evaluate(_ condition: String, on platform: String) -> Bool {
        var tokens = tokenize(condition.components(separatedBy: "//")[0])[...]
        return parseBinary(["||", "&&"], &tokens, platform)
    }

    private static func tokenize(_ text: String) -> [String] {
        var tokens: [String] = []
        var current = ""
        var depth = 0
        for c in text {
            if depth > 0 {
                current.append(c)
                if c == "(" { depth += 1 }
                if c == ")" { depth -= 1; if depth == 0 { tokens.append(current); current = "" } }
            } else if c == "(" && !current.isEmpty {
                current.append(c)
                depth = 1
            } else if "()!".contains(c) || c == " " || c == "&" || c == "|" {
                if !current.isEmpty { tokens.append(current); current = "" }
                if c == "&" || c == "|" {
                    if tokens.last == String(c) { tokens[tokens.count - 1] = String(repeating: c, count: 2) } else { tokens.append(String(c)) }
                } else if c != " " {
                    tokens.append(String(c))
                }
            } else {
                current.append(c)
            }
        }
        if !current.isEmpty { tokens.append(current) }
        return tokens
    }

    /// `||` of `&&` of unary terms: each operator in `operators` binds looser than the ones after it.
    private static func parseBinary(_ operators: ArraySlice<String>, _ tokens: inout ArraySlice<String>, _ platform: String) -> Bool {
        guard let op = operators.first else { return parseUnary(&tokens, platform) }
        var value = parseBinary(operators.dropFirst(), &tokens, platform)
        while tokens.first == op {
            tokens.removeFirst()
            let rhs = parseBinary(operators.dropFirst(), &tokens, platform)
            value = op == "||" ? (value || rhs) : (value && rhs)
        }
        return value
    }

    private static func parseUnary(_ tokens: inout ArraySlice<String>, _ platform: String) -> Bool {
        guard let token = tokens.popFirst() else { return true }
        if token == "!" { return !parseUnary(&tokens, platform) }
        if token == "(" {
            let value = parseBinary(["||", "&&"], &tokens, platform)
            if tokens.first == ")" { tokens.removeFirst() }
            return value
        }
        guard let open = token.firstIndex(of: "("), token.hasSuffix(")") else { return true }  // a trait or flag
        let function = token[..<open]
        let argument = token[token.index(after: open)..<token.index(before: token.endIndex)].trimmingCharacters(in: .whitespaces)
        switch function {
        case "os": return argument == platform
        case "canImport": return canImport(argument.components(separatedBy: ".")[0], on: platform)
        case "targetEnvironment": return false
        default: return true  // arch(), compiler(), swift(), hasFeature(): true for the toolchains this package supports
        }
    }
}
