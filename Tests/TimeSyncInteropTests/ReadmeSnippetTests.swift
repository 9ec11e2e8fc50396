#if CLI
import Foundation
import Testing
import TimeSync
import TimeSyncHTTP
import TimeSyncNTP
import TimeSyncNTPServer
import TimeSyncNTS
import TimeSyncTestSupport

// The README's Swift snippets, compiled as written (with the imports this file has). Never called:
// they would reach the network. `ReadmeSnippetTests` checks the README still says exactly this.

private func oneLiner() {
    // snippet: one-liner
    let now = TimeSynchronizer.shared.clock.now
    // end snippet
    _ = now
}

private func quickStart() async throws {
    // snippet: quick-start
    let api = URLSessionTimeSource(
        url: URL(string: "https://api.example.com/time")!,
        schemes: [.timeSyncTime, .unixTimestamp(header: "Response-Timestamp", unit: .milliseconds), .date],
        reference: .service("api.example.com"))
    let sync = try TimeSynchronizer(sources: [api], store: UserDefaultsCalibrationStore())
    // Subscribe before starting, so no event is missed: `.noSourceAnswered` comes as soon as a round of
    // polls brought no answer at all, each source with its reason.
    let events = sync.events()
    Task {
        for await event in events {
            if case .noSourceAnswered(let errors) = event {
                print("no time source answered:", errors.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: "; "))
            }
        }
    }
    sync.start()

    // With this one source, its first answer makes the clock `.synchronized`. With several sources the
    // first reading is `.provisional` (one reply could be a liar's) until min(3, sources) agree; it is
    // usable, with its bounds. After a relaunch the stored calibration answers at once (`isRestored`).
    if let first = await sync.firstReading(timeout: .seconds(5)) {
        print(first.status, first.serverTime, "±", first.error)
    } else {
        // Unsynchronized, the clock reads this device's own time; the summary says why, in one line.
        print(sync.diagnostics().summary)
    }

    // Has the sale certainly started? Only `.within` is a yes.
    let saleStart = UnixTime(seconds: 1_798_761_600)  // 2027-01-01T00:00:00Z, server time
    switch sync.clock.position(in: saleStart..<saleStart.advanced(by: .seconds(3600))) {
    case .within: print("buy now")
    case .before, .after: print("closed")
    case .uncertain: print("checking…")  // the bounds straddle an edge, or the clock is not synchronized yet
    }

    // A countdown that ignores the user changing the clock and resumes right after sleep.
    for try await tick in sync.clock.countdown(to: saleStart) { print(tick.formatted) }
    // end snippet
}

private func nts() throws {
    // snippet: nts
    // Authenticated NTP (RFC 8915): a key exchange over TLS, then replies signed with its keys. A
    // reply altered, replayed or forged on the path is dropped, never used.
    let servers = ["time.cloudflare.com", "nts.netnod.se", "ptbtime1.ptb.de"].map { NTSTimeSource(host: $0) }
    let secure = try TimeSynchronizer(sources: servers)
    secure.start()
    // end snippet
}

@Suite struct ReadmeSnippetTests {
    /// The snippets of this file, by name, without their indentation.
    static func compiledSnippets() throws -> [String: [String]] {
        let text = try String(contentsOfFile: #filePath, encoding: .utf8)
        var snippets: [String: [String]] = [:]
        var current: String?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("// snippet: ") {
                current = String(trimmed.dropFirst("// snippet: ".count))
                snippets[current!] = []
            } else if trimmed == "// end snippet" {
                current = nil
            } else if let name = current {
                snippets[name]!.append(line.hasPrefix("    ") ? String(line.dropFirst(4)) : String(line))
            }
        }
        return snippets
    }

    /// The README's snippets by name: the Swift block after each `<!-- snippet: NAME -->`, imports apart.
    static func readmeSnippets() throws -> [String: (imports: [String], lines: [String])] {
        let readme = try String(contentsOf: Interop.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        var snippets: [String: (imports: [String], lines: [String])] = [:]
        var pending: String?
        var current: String?
        for line in readme.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("<!-- snippet: ") {
                pending = String(line.dropFirst("<!-- snippet: ".count).dropLast(" -->".count))
            } else if line == "```swift", let name = pending {
                current = name
                pending = nil
                snippets[name] = ([], [])
            } else if line == "```" {
                current = nil
            } else if let name = current {
                if line.hasPrefix("import ") {
                    snippets[name]!.imports.append(String(line.dropFirst("import ".count)))
                } else if !(line.isEmpty && snippets[name]!.lines.isEmpty) {
                    snippets[name]!.lines.append(line)
                }
            }
        }
        return snippets
    }

    @Test func theReadmesSnippetsAreTheCompiledOnes() throws {
        let compiled = try Self.compiledSnippets()
        let readme = try Self.readmeSnippets()
        #expect(Set(readme.keys) == ["one-liner", "quick-start", "nts"])
        #expect(Set(compiled.keys) == Set(readme.keys))
        let available: Set<String> = ["Foundation", "TimeSync", "TimeSyncHTTP", "TimeSyncNTP", "TimeSyncNTS"]
        for (name, snippet) in readme {
            #expect(compiled[name] == snippet.lines, "README snippet \(name) differs from the compiled one")
            #expect(Set(snippet.imports).isSubset(of: available), "\(name) imports \(snippet.imports)")
        }
    }
}
#endif
