import Foundation
import Testing

/// The repository's shape, checked where a change could quietly break it: the core holds no
/// `@Observable` class (an app on iOS 16 links the core), every relative link in the Markdown a user
/// reads (README, docs/, ARCHITECTURE.md, each DocC catalog) names a file that exists, and each
/// module's DocC landing page lists every public type the module declares at the top level.
@Suite struct ArchitectureTests {
    static let root = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The files under `directory` (relative to the root) whose names end with `suffix`.
    static func files(under directory: String, endingWith suffix: String) -> [String] {
        let base = root.appendingPathComponent(directory).path
        guard let entries = FileManager.default.enumerator(atPath: base) else { return [] }
        return entries.compactMap { $0 as? String }.filter { $0.hasSuffix(suffix) }.map { "\(directory)/\($0)" }.sorted()
    }

    static func read(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    @Test func theCoreHoldsNoObservableClass() throws {
        let sources = Self.files(under: "Sources/TimeSync", endingWith: ".swift")
        #expect(sources.count > 50, "the core's sources were not found under \(Self.root.path)")
        var found: [String] = []
        for path in sources {
            for (number, line) in try Self.read(path).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = line.trimmingCharacters(in: .whitespaces)
                if code.hasPrefix("//") { continue }
                if code.contains("@Observable") || code.hasPrefix("import Observation") { found.append("\(path):\(number + 1): \(code)") }
            }
        }
        #expect(found.isEmpty, "the core must not hold an @Observable class (TimeSyncObservation does):\n\(found.joined(separator: "\n"))")
    }

    /// The relative link targets in a Markdown text: `[text](target)`, without a web address, a
    /// fragment-only link or a DocC `doc:` link.
    static func relativeLinks(in text: String) -> [String] {
        var links: [String] = []
        var inFence = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.trimmingCharacters(in: .whitespaces).hasPrefix("```") { inFence.toggle() }
            if inFence { continue }
            var rest = Substring(line)
            while let open = rest.range(of: "](") {
                let after = rest[open.upperBound...]
                guard let close = after.firstIndex(of: ")") else { break }
                let target = String(after[..<close]).split(separator: " ").first.map(String.init) ?? ""
                rest = after[after.index(after: close)...]
                if target.isEmpty || target.hasPrefix("#") || target.contains("://") || target.hasPrefix("mailto:")
                    || target.hasPrefix("doc:")
                {
                    continue
                }
                links.append(target)
            }
        }
        return links
    }

    @Test func everyRelativeMarkdownLinkResolves() throws {
        var documents = ["README.md", "ARCHITECTURE.md"] + Self.files(under: "docs", endingWith: ".md")
        documents += Self.files(under: "Sources", endingWith: ".md").filter { $0.contains(".docc/") }
        documents += Self.files(under: "web", endingWith: ".md").filter { !$0.contains("node_modules") }
        #expect(documents.count > 20, "the Markdown files were not found under \(Self.root.path)")
        var broken: [String] = []
        var checked = 0
        for document in documents {
            let directory = (document as NSString).deletingLastPathComponent
            for link in Self.relativeLinks(in: try Self.read(document)) {
                let path = String(link.split(separator: "#", maxSplits: 1).first ?? "")
                let target = Self.root.appendingPathComponent(directory).appendingPathComponent(path).standardized.path
                checked += 1
                if !FileManager.default.fileExists(atPath: target) { broken.append("\(document): (\(link))") }
            }
        }
        #expect(checked > 20)
        #expect(broken.isEmpty, "links to files that do not exist:\n\(broken.joined(separator: "\n"))")
    }

    @Test func theLinkReaderFindsRelativeLinksOnly() {
        let text = """
            See [a](docs/a.md), [b](https://example.com/b), [c](#c) and [e](../e.md#part "title").
            ```
            [f](not/a/link.md)
            ```
            """
        #expect(Self.relativeLinks(in: text) == ["docs/a.md", "../e.md#part"])
    }

    /// Types a landing page cannot link: DocC builds here for Linux, which does not compile them.
    static let appleOnlyTypes: Set<String> = ["KeychainCalibrationKeyProvider"]

    /// The names of the public types declared at the top level of a Swift source (a line that starts
    /// with `public`, after any attributes, and declares a struct, class, enum, protocol, actor or
    /// type alias).
    static func topLevelPublicTypes(in source: String) -> [String] {
        let kinds: Set<Substring> = ["struct", "class", "enum", "protocol", "actor", "typealias"]
        var names: [String] = []
        for line in source.split(separator: "\n") {
            // Attributes first, each with its parenthesized arguments, if any.
            var rest = line.drop { $0 == " " }
            while rest.first == "@" {
                rest = rest.dropFirst().drop { $0.isLetter || $0.isNumber || $0 == "_" }
                if rest.first == "(" {
                    var depth = 0
                    rest = rest.drop {
                        if $0 == "(" { depth += 1 } else if $0 == ")" { depth -= 1 }
                        return depth > 0 || $0 == ")"
                    }
                }
                rest = rest.drop { $0 == " " }
            }
            guard line.first != " " else { continue }
            var words = rest.split(separator: " ")[...]
            guard words.first == "public" else { continue }
            words = words.dropFirst()
            if words.first == "final" { words = words.dropFirst() }
            guard let kind = words.first, kinds.contains(kind), let name = words.dropFirst().first else { continue }
            names.append(String(name.prefix { $0.isLetter || $0.isNumber || $0 == "_" }))
        }
        return names
    }

    @Test func everyLandingPageListsItsModulesPublicTypes() throws {
        let modules = try FileManager.default.contentsOfDirectory(atPath: Self.root.appendingPathComponent("Sources").path).sorted()
        var missing: [String] = []
        var checked = 0
        for module in modules {
            let page = "Sources/\(module)/\(module).docc/\(module).md"
            guard FileManager.default.fileExists(atPath: Self.root.appendingPathComponent(page).path) else { continue }
            let text = try Self.read(page)
            guard let topics = text.range(of: "## Topics") else {
                missing.append("\(page): no Topics section")
                continue
            }
            let listed = text[topics.upperBound...]
            for source in Self.files(under: "Sources/\(module)", endingWith: ".swift") {
                for name in Self.topLevelPublicTypes(in: try Self.read(source)) where !Self.appleOnlyTypes.contains(name) {
                    checked += 1
                    if !listed.contains("``\(name)``") { missing.append("\(page): ``\(name)`` (declared in \(source))") }
                }
            }
        }
        #expect(checked > 100, "the modules' public types were not found under \(Self.root.path)")
        #expect(missing.isEmpty, "landing pages whose Topics omit a public type of their module:\n\(missing.joined(separator: "\n"))")
    }

    @Test func theTypeReaderFindsTopLevelPublicTypesOnly() {
        let source = """
            public struct A {
                public struct Nested {}
            }
            @available(macOS 14, *) @MainActor public final class B<T>: Sendable {}
            public enum C: Error {}
            package struct D {}
            public protocol E {}
            public typealias F = Int
            extension A { public enum G {} }
            """
        #expect(Self.topLevelPublicTypes(in: source) == ["A", "B", "C", "E", "F"])
    }
}
