import Foundation

/// The package's own files, read by the tests that keep the repository's shape: its root (found from
/// this file's path), the files under a folder, a file's text.
enum Repository {
    static let root = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The files under `directory` (relative to the root) whose names end with `suffix`, as paths
    /// relative to the root, sorted.
    static func files(under directory: String, endingWith suffix: String) -> [String] {
        let base = root.appendingPathComponent(directory).path
        guard let entries = FileManager.default.enumerator(atPath: base) else { return [] }
        return entries.compactMap { $0 as? String }.filter { $0.hasSuffix(suffix) }.map { "\(directory)/\($0)" }.sorted()
    }

    /// The text of the file at `path` (relative to the root).
    static func read(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }
}

/// Swift source read for names: comments and string literals blanked, lines kept.
enum SwiftCode {
    static func withoutCommentsAndStrings(_ text: String) -> [String] {
        var out = ""
        var chars = Array(text)[...]
        var inBlock = 0
        while let c = chars.first {
            if inBlock > 0 {
                if chars.starts(with: "*/") { inBlock -= 1; chars.removeFirst(2); continue }
                if chars.starts(with: "/*") { inBlock += 1; chars.removeFirst(2); continue }
                if c == "\n" { out.append(c) }
                chars.removeFirst()
            } else if chars.starts(with: "//") {
                while let d = chars.first, d != "\n" { chars.removeFirst() }
            } else if chars.starts(with: "/*") {
                inBlock = 1
                chars.removeFirst(2)
            } else if c == "\"" {
                let triple = chars.starts(with: "\"\"\"")
                chars.removeFirst(triple ? 3 : 1)
                out.append("\"\"")
                while let d = chars.first {
                    if d == "\\" { chars.removeFirst(min(2, chars.count)); continue }
                    if triple ? chars.starts(with: "\"\"\"") : d == "\"" { chars.removeFirst(triple ? 3 : 1); break }
                    if d == "\n" { out.append(d); if !triple { chars.removeFirst(); break } }
                    chars.removeFirst()
                }
            } else {
                out.append(c)
                chars.removeFirst()
            }
        }
        return out.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// Whether `name` appears in `line` as a whole identifier (or dotted name).
    static func mentions(_ name: String, in line: String) -> Bool {
        var start = line.startIndex
        while let range = line.range(of: name, range: start..<line.endIndex) {
            let before = range.lowerBound == line.startIndex ? nil : line[line.index(before: range.lowerBound)]
            let after = range.upperBound == line.endIndex ? nil : line[range.upperBound]
            let identifier: (Character?) -> Bool = { $0.map { $0.isLetter || $0.isNumber || $0 == "_" } ?? false }
            if !identifier(before) && !identifier(after) { return true }
            start = range.upperBound
        }
        return false
    }
}
