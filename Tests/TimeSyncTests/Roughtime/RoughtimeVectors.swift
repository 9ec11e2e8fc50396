import Crypto
import Foundation
import Testing

/// The published Roughtime vectors, kept in the repository at `Tests/Vectors/Roughtime` with their
/// provenance (its README) and checksums (`SHA256SUMS`).
enum RoughtimeVectors {
    static var directory: URL {
        // Through symlinks (scripts/tsan links the tests into a package of its own) to the checkout:
        // …/Tests/TimeSyncTests/Roughtime/RoughtimeVectors.swift → …/Tests/Vectors/Roughtime.
        var tests = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
        for _ in 0..<3 { tests.deleteLastPathComponent() }
        return tests.appendingPathComponent("Vectors/Roughtime", isDirectory: true)
    }

    /// The bytes of a vector file; a missing file fails the test with the path it looked for.
    static func bytes(_ name: String) throws -> [UInt8] {
        let url = directory.appendingPathComponent(name)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            Issue.record("Roughtime vector \(url.path) is missing (the vectors live in Tests/Vectors/Roughtime)")
            throw VectorMissing(path: url.path)
        }
        return Array(data)
    }

    static func text(_ name: String) throws -> String {
        String(decoding: try bytes(name), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `SHA256SUMS`: each file's expected SHA-256, by its path in the folder.
    static func checksums() throws -> [(digest: String, path: String)] {
        try text("SHA256SUMS").split(separator: "\n").map { line in
            let fields = line.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
            guard fields.count == 2 else { throw VectorMissing(path: "SHA256SUMS: a line without a digest and a path: \(line)") }
            var path = fields[1].trimmingCharacters(in: .whitespaces)
            if path.hasPrefix("./") { path.removeFirst(2) }
            return (String(fields[0]), path)
        }
    }

    static func sha256(_ bytes: [UInt8]) -> String {
        SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
    }

    struct VectorMissing: Error, CustomStringConvertible {
        let path: String
        var description: String { "Roughtime vector missing: \(path)" }
    }
}
