#if CLI
import Foundation
import Testing
import TimeSyncTestSupport

/// Every Swift block of README.md, docs/*.md and the DocC articles is compiled code.
@Suite struct DocumentationSnippetTests {
    // Every Swift block of the documentation a user reads (README.md, docs/*.md and the DocC articles,
    // Sources/*/*.docc/*.md) is code that compiles: each is preceded by `<!-- snippet: NAME -->`, and its
    // lines, imports apart, are those between `// snippet: NAME` and `// end snippet` in a file of
    // `Tests/TimeSyncSnippets/`, which imports every module the block does. Those files compile in a test
    // target of their own under another package name, so they see only what an app sees; their functions
    // are never called (they would reach the network or bind ports), except the one that needs neither.
    //
    // Two other kinds of block are accepted, each by its marker:
    // - `<!-- snippet: NAME (manifest) -->`: lines of a `Package.swift` (an install line, a product), which
    //   a test target cannot import PackageDescription to compile; the block must be one.
    //   `scripts/check-install` resolves every install line against the repository.
    // - `<!-- snippet: NAME (Apple only: WHY) -->`: code that needs an Apple framework, only for the names
    //   in `appleOnly`.

    /// The blocks that need SwiftUI or UIKit, and cannot compile on Linux.
    static let appleOnly: Set<String> = ["swiftui-sale-view"]

    static let root = Interop.packageRoot
    static let snippetFolder = "Tests/TimeSyncSnippets"

    enum Kind: Equatable {
        case compiled
        case manifest
        case appleOnly(String)
    }

    /// A Swift block of a document, with the marker before it.
    struct Block {
        var file: String
        var line: Int
        var name: String?
        var kind: Kind
        var imports: [String] = []
        var lines: [String] = []
        var location: String { "\(file):\(line)" }
    }

    /// A compiled snippet: its lines without the indentation of its `// snippet:` line.
    struct Compiled {
        var file: String
        var line: Int
        var imports: Set<String>
        var lines: [String] = []
        var location: String { "\(file):\(line)" }
    }

    /// README.md, docs/*.md and every DocC article, relative to the repository.
    static func documents() throws -> [String] {
        let manager = FileManager.default
        var paths = ["README.md"]
        let docs = root.appendingPathComponent("docs").path
        paths += try manager.contentsOfDirectory(atPath: docs).filter { $0.hasSuffix(".md") }.sorted().map { "docs/\($0)" }
        let sources = root.appendingPathComponent("Sources").path
        for module in try manager.contentsOfDirectory(atPath: sources).sorted() {
            for catalog in ((try? manager.contentsOfDirectory(atPath: "\(sources)/\(module)")) ?? []).sorted() where catalog.hasSuffix(".docc") {
                let articles = try manager.contentsOfDirectory(atPath: "\(sources)/\(module)/\(catalog)")
                paths += articles.filter { $0.hasSuffix(".md") }.sorted().map { "Sources/\(module)/\(catalog)/\($0)" }
            }
        }
        return paths
    }

    static func lines(of path: String) throws -> [String] {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// The marker's name and kind: `NAME`, `NAME (manifest)` or `NAME (Apple only: WHY)`.
    static func marker(_ line: String) -> (name: String, kind: Kind)? {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        guard trimmed.hasPrefix("<!-- snippet: "), trimmed.hasSuffix(" -->") else { return nil }
        let text = String(trimmed.dropFirst("<!-- snippet: ".count).dropLast(" -->".count))
        guard let open = text.firstIndex(of: "("), text.hasSuffix(")") else { return (text, .compiled) }
        let name = text[..<open].trimmingCharacters(in: .whitespaces)
        let note = String(text[text.index(after: open)..<text.index(before: text.endIndex)])
        if note == "manifest" { return (name, .manifest) }
        if note.hasPrefix("Apple only: ") { return (name, .appleOnly(String(note.dropFirst("Apple only: ".count)))) }
        return nil
    }

    /// Every Swift block of `path`, with its marker (the line before it, blank lines apart), and the
    /// problems found: a marker with no Swift block after it.
    static func blocks(in path: String) throws -> (blocks: [Block], problems: [String]) {
        var blocks: [Block] = []
        var problems: [String] = []
        var pending: (name: String, kind: Kind, line: Int)?
        var current: Block?
        for (index, line) in try lines(of: path).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if var block = current {
                if trimmed == "```" {
                    blocks.append(block)
                    current = nil
                } else if line.hasPrefix("import ") {
                    block.imports.append(String(line.dropFirst("import ".count)))
                    current = block
                } else if !(line.isEmpty && block.lines.isEmpty) {
                    block.lines.append(line)
                    current = block
                }
                continue
            }
            if trimmed.hasPrefix("<!-- snippet:") {
                if let pending { problems.append("\(path):\(pending.line): snippet marker \(pending.name) is not followed by a Swift block") }
                guard let (name, kind) = marker(line) else {
                    problems.append("\(path):\(index + 1): cannot read the marker \(trimmed)")
                    continue
                }
                pending = (name, kind, index + 1)
            } else if trimmed.hasPrefix("```swift") {
                current = Block(file: path, line: index + 1, name: pending?.name, kind: pending?.kind ?? .compiled)
                pending = nil
            } else if !trimmed.isEmpty, let marker = pending {
                problems.append("\(path):\(marker.line): snippet marker \(marker.name) is not followed by a Swift block")
                pending = nil
            }
        }
        if let pending { problems.append("\(path):\(pending.line): snippet marker \(pending.name) is not followed by a Swift block") }
        if let current { problems.append("\(current.location): a Swift block that never ends") }
        return (blocks, problems)
    }

    /// The compiled snippets of every file in `Tests/TimeSyncSnippets/`, by name, and the problems found (a name
    /// used twice, a snippet that never ends).
    static func compiledSnippets() throws -> (snippets: [String: Compiled], problems: [String]) {
        var snippets: [String: Compiled] = [:]
        var problems: [String] = []
        let folder = root.appendingPathComponent(snippetFolder).path
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".swift") }.sorted()
        for file in files {
            let path = "\(snippetFolder)/\(file)"
            let lines = try lines(of: path)
            let imports = Set(lines.filter { $0.hasPrefix("import ") }.map { String($0.dropFirst("import ".count)) })
            var current: (name: String, indentation: String)?
            for (index, line) in lines.enumerated() {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if trimmed.hasPrefix("// snippet: ") {
                    if let current { problems.append("\(path):\(index + 1): snippet \(current.name) has no // end snippet") }
                    let name = String(trimmed.dropFirst("// snippet: ".count))
                    if let other = snippets[name] { problems.append("\(path):\(index + 1): snippet \(name) is also at \(other.location)") }
                    current = (name, String(line.prefix { $0 == " " }))
                    snippets[name] = Compiled(file: path, line: index + 1, imports: imports)
                } else if trimmed == "// end snippet" {
                    current = nil
                } else if let (name, indentation) = current {
                    snippets[name]!.lines.append(line.hasPrefix(indentation) ? String(line.dropFirst(indentation.count)) : line)
                }
            }
            if let current { problems.append("\(path): snippet \(current.name) has no // end snippet") }
        }
        return (snippets, problems)
    }

    @Test func everySwiftBlockOfTheDocumentationIsACompiledSnippet() throws {
        let (compiled, compiledProblems) = try Self.compiledSnippets()
        var problems = compiledProblems
        var blocks: [Block] = []
        for document in try Self.documents() {
            let found = try Self.blocks(in: document)
            blocks += found.blocks
            problems += found.problems
        }
        #expect(blocks.count >= 40, "only \(blocks.count) Swift blocks found in the documentation")

        var seen: [String: String] = [:]
        for block in blocks {
            guard let name = block.name else {
                problems.append("\(block.location): a Swift block with no <!-- snippet: NAME --> marker before it")
                continue
            }
            if let other = seen[name] { problems.append("\(block.location): snippet name \(name) is also used at \(other)") }
            seen[name] = block.location
            switch block.kind {
            case .compiled:
                guard let snippet = compiled[name] else {
                    problems.append("\(block.location): no compiled snippet \(name) in \(Self.snippetFolder)")
                    continue
                }
                if snippet.lines != block.lines {
                    let index = Array(zip(snippet.lines, block.lines)).firstIndex { $0 != $1 } ?? min(snippet.lines.count, block.lines.count)
                    let documented = index < block.lines.count ? block.lines[index] : "(end of block)"
                    let compiledLine = index < snippet.lines.count ? snippet.lines[index] : "(end of snippet)"
                    problems.append(
                        "\(block.location): snippet \(name) differs from the compiled one at \(snippet.location), line \(index + 1) of the code: "
                            + "the documentation has «\(documented)», the compiled one «\(compiledLine)»")
                }
                let missing = Set(block.imports).subtracting(snippet.imports)
                if !missing.isEmpty {
                    problems.append("\(block.location): snippet \(name) imports \(missing.sorted()), which \(snippet.file) does not")
                }
            case .manifest:
                let text = block.lines.joined(separator: "\n")
                if !(text.contains("Package(") || text.contains(".package(") || text.contains(".product(")) || !block.imports.isEmpty {
                    problems.append("\(block.location): snippet \(name) is marked (manifest) but is not Package.swift lines")
                }
                if let snippet = compiled[name] { problems.append("\(block.location): manifest snippet \(name) also has a compiled one at \(snippet.location)") }
            case .appleOnly:
                if !Self.appleOnly.contains(name) {
                    problems.append("\(block.location): snippet \(name) is marked Apple only but is not one of \(Self.appleOnly.sorted())")
                }
                if let snippet = compiled[name] { problems.append("\(block.location): Apple-only snippet \(name) also has a compiled one at \(snippet.location)") }
            }
        }
        let unused = compiled.filter { seen[$0.key] == nil }.values.sorted { $0.location < $1.location }
        for snippet in unused { problems.append("\(snippet.location): no documentation uses this compiled snippet") }
        let listed = blocks.filter { if case .appleOnly = $0.kind { true } else { false } }.compactMap(\.name)
        #expect(Set(listed) == Self.appleOnly, "Apple-only snippets listed but not in the documentation: \(Self.appleOnly.subtracting(listed).sorted())")
        #expect(problems.isEmpty, "\(problems.count) problem(s):\n\(problems.joined(separator: "\n"))")
    }
}
#endif
