import Foundation
import Testing

/// The repository's shape, checked where a change could quietly break it: the core holds no
/// `@Observable` class (an app on iOS 16 links the core), every relative link in the Markdown a user
/// reads (README, docs/, ARCHITECTURE.md, each DocC catalog) names a file that exists, each module's
/// DocC landing page lists every public type the module declares at the top level, only the sockets
/// module calls the system's socket and resolver functions, and only public entry points default to
/// the system's clocks (inside the library every call passes the time base it was given on).
@Suite struct ArchitectureTests {
    static let root = Repository.root

    static func files(under directory: String, endingWith suffix: String) -> [String] {
        Repository.files(under: directory, endingWith: suffix)
    }

    static func read(_ path: String) throws -> String {
        try Repository.read(path)
    }

    /// A Swift file's lines with comments and string literals blanked (numbering kept).
    static func code(_ path: String) throws -> [String] {
        SwiftCode.withoutCommentsAndStrings(try read(path))
    }

    @Test func theCoreHoldsNoObservableClass() throws {
        let sources = Self.files(under: "Sources/TimeSync", endingWith: ".swift")
        #expect(sources.count > 50, "the core's sources were not found under \(Self.root.path)")
        var found: [String] = []
        for path in sources {
            for (number, line) in try Self.code(path).enumerated() {
                let code = line.trimmingCharacters(in: .whitespaces)
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

    /// Types that exist on some platforms only: a landing page names them in a code span, since a
    /// link would not resolve where the page is built for a platform without them.
    static let platformOnlyTypes: Set<String> = ["KeychainCalibrationKeyProvider", "FileCalibrationKeyProvider"]

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
                for name in Self.topLevelPublicTypes(in: try Self.read(source)) {
                    checked += 1
                    if Self.platformOnlyTypes.contains(name) {
                        if !listed.contains("`\(name)`") || listed.contains("``\(name)``") {
                            missing.append("\(page): `\(name)` in a code span, not a link (declared in \(source), not on every platform)")
                        }
                    } else if !listed.contains("``\(name)``") {
                        missing.append("\(page): ``\(name)`` (declared in \(source))")
                    }
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

    /// The system's socket, polling and name-resolution functions: only `TimeSyncSockets` calls them
    /// from Swift (the NTP server's batched I/O goes through the C target `CTimeSyncBatchIO`).
    static let socketFunctions = [
        "recv", "recvfrom", "recvmsg", "recvmmsg", "send", "sendto", "sendmsg", "sendmmsg", "poll", "select", "epoll_wait",
        "getaddrinfo", "getnameinfo",
    ]

    /// The calls of `functions` in a Swift source, as "line: text": a name followed by `(` that is not in
    /// a comment or a string, a member (`.poll(`, but `Glibc.poll(` is the system's), a declaration
    /// (`func poll(`, `case poll(`), part of a longer name, or a Swift call (no argument, or a labelled
    /// one).
    static func calls(of functions: [String], in source: String) -> [String] {
        var found: [String] = []
        for (number, line) in SwiftCode.withoutCommentsAndStrings(source).enumerated() {
            let code = line.trimmingCharacters(in: .whitespaces)
            for name in functions {
                var searchFrom = code.startIndex
                while let range = code.range(of: name + "(", range: searchFrom..<code.endIndex) {
                    searchFrom = range.upperBound
                    let before = code[..<range.lowerBound]
                    let qualified = ["Glibc.", "Darwin.", "Musl.", "Android."].contains { before.hasSuffix($0) }
                    if !qualified, let last = before.last, last.isLetter || last.isNumber || last == "_" || last == "." { continue }
                    // A C function takes no argument labels, and these take at least one argument.
                    let arguments = code[range.upperBound...].prefix { $0 != ")" }
                    if arguments.isEmpty || arguments.contains(where: { $0 == ":" }) { continue }
                    let words = before.split(separator: " ")
                    if let previous = words.last, ["func", "case", "var", "let"].contains(previous) { continue }
                    found.append("\(number + 1): \(code)")
                }
            }
        }
        return found
    }

    @Test func onlyTheSocketsModuleCallsTheSystemsSocketFunctions() throws {
        let sources = Self.files(under: "Sources", endingWith: ".swift").filter { !$0.hasPrefix("Sources/TimeSyncSockets/") }
        #expect(sources.count > 200)
        var found: [String] = []
        for path in sources {
            found += Self.calls(of: Self.socketFunctions, in: try Self.read(path)).map { "\(path):\($0)" }
        }
        #expect(found.isEmpty, "socket calls outside TimeSyncSockets:\n\(found.joined(separator: "\n"))")
        // The check sees the module's own calls.
        let sockets = Self.files(under: "Sources/TimeSyncSockets", endingWith: ".swift")
        #expect(try sockets.contains { !Self.calls(of: ["getaddrinfo"], in: try Self.read($0)).isEmpty })
        #expect(try sockets.contains { !Self.calls(of: ["poll"], in: try Self.read($0)).isEmpty })
    }

    @Test func theCallReaderSkipsMembersAndDeclarations() {
        let source = """
            let n = recvfrom(fd, &buffer, count, 0, nil, nil)
            await loop.poll(source)
            case poll(source: Int)
            static func poll(forInterval seconds: Double) -> Int8 {
            // poll(fds, 1, timeout)
            let status = Glibc.poll(&fds, 1, timeout)
            await poll()
            return send(source, at: now)
            """
        #expect(
            Self.calls(of: Self.socketFunctions, in: source) == [
                "1: let n = recvfrom(fd, &buffer, count, 0, nil, nil)", "6: let status = Glibc.poll(&fds, 1, timeout)",
            ])
    }

    /// Where the library (not the command) reaches the system's clocks, as "path:line", when it is not
    /// the fallback of a public declaration's `timeBase: (any TimeBase)? = nil`. A default inside the
    /// library lets one call quietly wait on the real clock while its caller runs on another time base.
    @Test func onlyPublicEntryPointsDefaultToTheSystemsClocks() throws {
        let sources = Self.files(under: "Sources", endingWith: ".swift").filter { !$0.hasPrefix("Sources/timesync/") }
        // A source's driver is made once on the system's clocks to read its name; it never measures
        // there (the synchronizer makes the measuring one on its own time base).
        let probe = "Sources/TimeSync/Synchronizer/TimeSource.swift"
        var defaults = 0
        var hidden: [String] = []
        for path in sources where path != "Sources/TimeSync/Time/SystemTimeBase.swift" {
            let lines = try Self.code(path)
            for (index, line) in lines.enumerated() where line.contains("SystemTimeBase()") {
                let code = line.trimmingCharacters(in: .whitespaces)
                if path == probe, code.contains("make(SystemTimeBase())") { continue }
                // The fallback opens the body; the declaration starts a few lines before it, and its
                // parameter is the optional time base.
                let start = (max(0, index - 8)..<index).reversed().first {
                    let declaration = lines[$0].trimmingCharacters(in: .whitespaces)
                    return declaration.contains("func ") || declaration.contains(" init(") || declaration.contains(" init<")
                        || declaration.hasPrefix("init(")
                }
                let declaration = start.map { lines[$0..<index].joined(separator: " ") } ?? ""
                guard code == "let timeBase = timeBase ?? SystemTimeBase()", let start, lines[start].contains("public "),
                    declaration.contains("timeBase: (any TimeBase)? = nil")
                else {
                    hidden.append("\(path):\(index + 1): \(code)")
                    continue
                }
                defaults += 1
            }
        }
        #expect(defaults > 10, "no default time base found: the check reads nothing")
        #expect(hidden.isEmpty, "the system's clocks reached other than as a public entry point's default:\n\(hidden.joined(separator: "\n"))")
    }

    /// The modules that may import the server policies: the servers, the command, nothing an app links.
    static let serverModules: Set<String> = [
        "TimeSyncServerSupport", "TimeSyncNTPServer", "TimeSyncNTS", "TimeSyncRoughtimeServer", "TimeSyncHummingbird", "timesync",
    ]

    @Test func onlyTheServersImportTheServerPolicies() throws {
        var found: [String] = []
        var checked = 0
        for path in Self.files(under: "Sources", endingWith: ".swift") {
            let module = path.split(separator: "/")[1]
            guard !Self.serverModules.contains(String(module)) else { continue }
            checked += 1
            for (number, line) in try Self.code(path).enumerated() where SwiftCode.mentions("TimeSyncServerSupport", in: line) {
                found.append("\(path):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
            }
        }
        #expect(checked > 150, "the sources were not found under \(Self.root.path)")
        #expect(found.isEmpty, "modules an app links import the server policies:\n\(found.joined(separator: "\n"))")
        // The check sees the servers' own imports.
        let servers = Self.files(under: "Sources/TimeSyncNTPServer", endingWith: ".swift")
        #expect(try servers.contains { try Self.code($0).contains { SwiftCode.mentions("TimeSyncServerSupport", in: $0) } })
    }
}
