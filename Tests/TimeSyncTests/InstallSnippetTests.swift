import Foundation
import Testing

/// The install instructions against the release: every `.package(url: "…timesync…", from: "X")` in
/// the README and the DocC articles asks for the version in `VERSION`, so a user who copies a snippet
/// gets a version that exists. `scripts/check-install` makes the same check, and also checks the tag.
@Suite struct InstallSnippetTests {
    static let root = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// An install snippet: where it is and the version it asks for.
    struct Snippet: CustomStringConvertible {
        var file: String
        var line: Int
        var version: String
        var description: String { "\(file):\(line): from: \"\(version)\"" }
    }

    /// The README and every DocC article, as paths relative to the repository.
    static func documents() throws -> [String] {
        var paths = ["README.md"]
        let sources = root.appendingPathComponent("Sources")
        for module in try FileManager.default.contentsOfDirectory(atPath: sources.path).sorted() {
            let modulePath = sources.appendingPathComponent(module).path
            for catalog in (try? FileManager.default.contentsOfDirectory(atPath: modulePath)) ?? [] where catalog.hasSuffix(".docc") {
                let catalogPath = "\(modulePath)/\(catalog)"
                for article in try FileManager.default.contentsOfDirectory(atPath: catalogPath).sorted() where article.hasSuffix(".md") {
                    paths.append("Sources/\(module)/\(catalog)/\(article)")
                }
            }
        }
        return paths
    }

    /// The `.package(url: "…timesync…", from: "X")` lines of one document.
    static func snippets(in path: String) throws -> [Snippet] {
        let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
        let pattern = try Regex(#"\.package\(url: *"[^"]*timesync[^"]*"[^)]*from: *"([^"]*)""#).ignoresCase()
        var found: [Snippet] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            for match in line.matches(of: pattern) {
                guard let version = match.output[1].substring else { continue }
                found.append(Snippet(file: path, line: index + 1, version: String(version)))
            }
        }
        return found
    }

    @Test func everyInstallSnippetAsksForTheVersionInVERSION() throws {
        let version = try String(contentsOf: Self.root.appendingPathComponent("VERSION"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(version.split(separator: ".").count == 3 && version.allSatisfy { $0.isNumber || $0 == "." }, "VERSION: \(version)")
        let snippets = try Self.documents().flatMap { try Self.snippets(in: $0) }
        #expect(snippets.contains { $0.file == "README.md" }, "README.md has no install snippet")
        #expect(snippets.contains { $0.file.hasSuffix("GettingStarted.md") }, "GettingStarted.md has no install snippet")
        let stale = snippets.filter { $0.version != version }
        #expect(stale.isEmpty, "VERSION is \(version), but \(stale.map(\.description).joined(separator: "; "))")
    }

    @Test func thePackageNeedsToolsVersion6_1() throws {
        let manifest = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        #expect(manifest.hasPrefix("// swift-tools-version: 6.1\n"), "traits need tools version 6.1")
    }
}
