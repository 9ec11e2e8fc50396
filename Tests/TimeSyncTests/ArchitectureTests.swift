import Foundation
import Testing

/// The repository's shape, checked where a change could quietly break it: the core holds no
/// `@Observable` class (an app on iOS 16 links the core), and every relative link in the Markdown a
/// user reads (README, docs/, ARCHITECTURE.md, each DocC catalog) names a file that exists.
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
}
