import Foundation
import Testing

/// The install instructions as a user copies them: every `.package(url: "…/timesync", …)` line in the
/// README and the DocC articles asks for the same thing, `branch: "main"` (no release is tagged, and
/// tags are not published with main), with traits where a server needs them. `scripts/check-install`
/// builds an app with exactly the README's line against a tagless clone.
@Suite struct InstallSnippetTests {
    static let root = Repository.root

    /// An install line: where it is and what it asks for after the URL.
    struct Snippet: CustomStringConvertible {
        var file: String
        var line: Int
        var requirement: String
        var description: String { "\(file):\(line): \(requirement)" }
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

    /// The `.package(url: "…/timesync", …)` lines of one document.
    static func snippets(in path: String) throws -> [Snippet] {
        let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
        let pattern = try Regex(#"\.package\(url: *"[^"]*/timesync", *([^)]*)\)"#).ignoresCase()
        var found: [Snippet] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            for match in line.matches(of: pattern) {
                guard let requirement = match.output[1].substring else { continue }
                found.append(Snippet(file: path, line: index + 1, requirement: String(requirement)))
            }
        }
        return found
    }

    @Test func everyInstallLineFollowsMain() throws {
        let snippets = try Self.documents().flatMap { try Self.snippets(in: $0) }
        #expect(snippets.contains { $0.file == "README.md" && $0.requirement == #"branch: "main""# }, "README.md has no app install line")
        #expect(snippets.contains { $0.file.hasSuffix("GettingStarted.md") }, "GettingStarted.md has no install line")
        let traits = try Regex(#"^branch: "main"(, traits: \["[A-Za-z]+"(, "[A-Za-z]+")*\])?$"#)
        let other = snippets.filter { $0.requirement.wholeMatch(of: traits) == nil }
        #expect(other.isEmpty, "install lines that ask for something a tagless main cannot give: \(other.map(\.description).joined(separator: "; "))")
    }

    @Test func theVersionFileIsASemanticVersion() throws {
        let version = try String(contentsOf: Self.root.appendingPathComponent("VERSION"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(version.split(separator: ".").count == 3 && version.allSatisfy { $0.isNumber || $0 == "." }, "VERSION: \(version)")
    }

    @Test func thePackageNeedsToolsVersion6_1AndTheREADMESaysSo() throws {
        let manifest = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        #expect(manifest.hasPrefix("// swift-tools-version: 6.2\n"), "the README tells apps tools version 6.2")
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.contains("swift-tools-version: 6.2"), "the README does not tell an app its tools version")
    }
}
