import Foundation
import Testing

/// The project's scripts and tests share their machine with other test runs and its own time service:
/// they stop only the processes they started, by PID — never by name, never a system service.
@Suite struct ScriptHygieneTests {
    /// The repository, also when this file is reached through a symbolic link (scripts/tsan).
    static let root = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test func nothingIsStoppedByNameOrAsAService() throws {
        let folders = ["scripts", ".ci", "Tests", "Benchmarks"]
        var offenders: [String] = []
        for folder in folders {
            let directory = Self.root.appendingPathComponent(folder)
            guard let files = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil) else { continue }
            for case let file as URL in files where !file.path.contains("/.build") && file.lastPathComponent != "ScriptHygieneTests.swift" {
                guard let text = try? String(contentsOf: file, encoding: .utf8) else { continue }
                for pattern in ["pkill", "killall", "systemctl stop"] where text.contains(pattern) {
                    offenders.append("\(file.path.replacingOccurrences(of: Self.root.path + "/", with: "")): \(pattern)")
                }
            }
        }
        #expect(FileManager.default.fileExists(atPath: Self.root.appendingPathComponent("scripts/install-test-deps").path))
        #expect(offenders.isEmpty, "\(offenders)")
    }
}
