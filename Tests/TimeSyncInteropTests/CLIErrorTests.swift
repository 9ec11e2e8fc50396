#if CLI
import Foundation
import Testing
import TimeSync
import TimeSyncWire
import TimeSyncNTP
import TimeSyncNTPServer
import TimeSyncTestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the `timesync` executable says when something goes wrong: usage errors exit 64 and name the
/// flag and the value, runtime failures exit 1 and name the server and the reason, and every failure
/// says what to do; with `--json` a failure is one JSON object on stdout with a stable `errorType`.
@Suite(.enabled(if: Interop.timesyncBinary() != nil || Interop.required))
struct CLIErrorTests {
    static func run(_ arguments: [String], timeout: Duration = .seconds(30)) async throws -> (status: Int32, stdout: String, stderr: String) {
        let binary = try #require(Interop.timesyncBinary(), "build the timesync executable first")
        return try await ChildProcess.run(binary, arguments, timeout: timeout)
    }

    /// The one JSON object a failure prints on stdout under `--json`.
    static func failureObject(_ stdout: String) throws -> [String: Any] {
        let lines = stdout.split(separator: "\n")
        #expect(lines.count == 1, "one JSON line expected: \(stdout)")
        let line = try #require(lines.first, "no output")
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not a JSON object: \(line)")
    }

    /// Usage errors, each with the words its message must contain (the flag, the value, the reason).
    static let usageErrors: [([String], [String])] = [
        (["query", "--timeout", "-1", "ntp://127.0.0.1"], ["--timeout -1", "more than 0"]),
        (["query", "--samples", "-3", "ntp://127.0.0.1"], ["--samples -3", "1 to 64"]),
        (["query", "--samples", "0", "http://127.0.0.1/"], ["--samples 0", "1 to 64"]),
        (["query", "ntp://127.0.0.1:99999"], ["ntp://127.0.0.1:99999", "port 99999", "1–65535"]),
        (["query", "ntp://"], ["'ntp://'", "no host"]),
        (["query", "ftp://127.0.0.1/"], ["ftp://127.0.0.1/", "ntp://, nts://, roughtime://, http:// or https://"]),
        (["query", "--date-only", "ntp://127.0.0.1"], ["--date-only", "http(s)"]),
        (["serve", "--http", "127.0.0.1"], ["--http '127.0.0.1'", "no port"]),
        (["serve", "--ntp", "127.0.0.1:70000"], ["--ntp '127.0.0.1:70000'", "port 70000"]),
        (["serve", "--ntp", "127.0.0.1:0", "--threads", "-2"], ["--threads -2", "1 to 256"]),
        (["watch", "--timeout", "0", "ntp://127.0.0.1"], ["--timeout 0", "more than 0"]),
        (["watch", "ntp://127.0.0.1:0"], ["ntp://127.0.0.1:0", "port 0"]),
        (["watch", "--tolerance", "-1", "ntp://127.0.0.1"], ["--tolerance -1", "from 0"]),
        (["watch", "--deadline", "yesterday", "ntp://127.0.0.1"], ["--deadline 'yesterday'", "ISO 8601"]),
        (["query", "roughtime://127.0.0.1:2002"], ["roughtime://127.0.0.1:2002", "no key="]),
        (["serve", "--roughtime", "127.0.0.1:0"], ["--roughtime", "--key FILE"]),
        (["serve", "--roughtime", "127.0.0.1:0", "--key", "/dev/null", "--roughtime-batch", "0"], ["--roughtime-batch 0", "1 to 64"]),
        (["serve", "--ntp", "127.0.0.1:0", "--ntp-io", "fast"], ["--ntp-io 'fast'", "'batched'", "'swiftnio'"]),
        (["serve", "--ntp", "127.0.0.1:0", "--ntp-coalesce", "-1"], ["--ntp-coalesce -1", "0 to 10000"]),
        (["query", "nts://127.0.0.1:4460:1"], ["'127.0.0.1:4460:1' is neither HOST:PORT nor an IPv6 literal"]),
        (["query", "ntp://127.0.0.1:123:1"], ["'127.0.0.1:123:1' is neither HOST:PORT nor an IPv6 literal"]),
        (["query", "http://127.0.0.1%00.example.com/"], ["its host holds a control character"]),
        (["watch", "https://time.example%0A.com/"], ["its host holds a control character"]),
        (["query", "ntp://time.example%00"], ["'time.example%00' is not a host name"]),
        (["serve", "--roughtime", "127.0.0.1:0", "--key", "/dev/null", "--roughtime-rate-limit", "fast"], ["--roughtime-rate-limit 'fast'", "'off'"]),
        (["serve", "--roughtime", "127.0.0.1:0", "--key", "/dev/null", "--roughtime-rate-limit-burst", "0"], ["--roughtime-rate-limit-burst 0", "1 to 10000"]),
        (["serve", "--ntp", "127.0.0.1:0", "--nts-ke-max-connections", "0"], ["--nts-ke-max-connections 0", "1 to 1000000"]),
        (["serve", "--ntp", "127.0.0.1:0", "--nts-ke-max-connections-per-address", "-1"], ["--nts-ke-max-connections-per-address -1", "1 to 1000000"]),
        (["serve", "--ntp", "127.0.0.1:0", "--nts-ke-timeout", "0"], ["--nts-ke-timeout 0", "0.001 to 86400"]),
        (["serve", "--ntp", "127.0.0.1:0", "--nts-ke-rate-limit", "fast"], ["--nts-ke-rate-limit 'fast'", "'off'"]),
        (["serve", "--http", "127.0.0.1:0", "--http-cors-origin", "https://shop.example/"], ["--http-cors-origin 'https://shop.example/'", "no trailing slash"]),
        (["serve", "--http", "127.0.0.1:0", "--http-cors-origin", "shop.example"], ["--http-cors-origin 'shop.example'", "https://shop.example"]),
        (["serve", "--http", "127.0.0.1:0", "--http-cors-origin", "*", "--http-cors-origin", "https://a.example"], ["'*'", "give it alone"]),
        // A host DNS cannot carry is a usage error before any lookup, for every scheme.
        (["query", "ntp://\(longLabel).example"], ["is 300 octets long", "at most 63"]),
        (["query", "nts://\(longLabel).example"], ["is 300 octets long", "at most 63"]),
        (["watch", "roughtime://\(longLabel).example:2002?key=AW5uAoTSTDfG5NfY1bTh08GUnOqlRb+HVhbJ3ODJvsE="], ["is 300 octets long", "at most 63"]),
        (["query", "http://\(longLabel).example/"], ["is 300 octets long", "at most 63"]),
        (["watch", "https://\(longName)/"], ["is 255 octets long", "at most 253"]),
    ]

    /// A DNS label of 300 octets, and a name of 255 made of labels of 63.
    static let longLabel = String(repeating: "a", count: 300)
    static let longName = Array(repeating: String(repeating: "b", count: 63), count: 4).joined(separator: ".")

    @Test("a usage error exits 64 and names the flag, the value and the reason", arguments: usageErrors)
    func usageErrorText(_ arguments: [String], _ words: [String]) async throws {
        let result = try await Self.run(arguments)
        #expect(result.status == 64, "\(arguments): \(result)")
        #expect(result.stdout.isEmpty, "\(result.stdout)")
        for word in words { #expect(result.stderr.contains(word), "'\(word)' missing from: \(result.stderr)") }
        #expect(!result.stderr.contains("Missing value"), "\(result.stderr)")
    }

    /// `serve` has no `--json`: it logs.
    @Test(
        "under --json a usage error is a JSON object with errorType invalidArgument, and exits 64",
        arguments: usageErrors.filter { $0.0[0] != "serve" })
    func usageErrorJSON(_ arguments: [String], _ words: [String]) async throws {
        let result = try await Self.run(arguments + ["--json"])
        #expect(result.status == 64, "\(arguments): \(result)")
        let object = try Self.failureObject(result.stdout)
        #expect(object["errorType"] as? String == "invalidArgument")
        let error = try #require(object["error"] as? String)
        for word in words { #expect(error.contains(word), "'\(word)' missing from: \(error)") }
        #expect((object["help"] as? String)?.contains("--help") == true, "\(object)")
    }

    @Test("the README's CLI section lists every errorType the CLI can print")
    func readmeListsEveryErrorType() throws {
        let root = Interop.packageRoot
        let source = try String(contentsOf: root.appendingPathComponent("Sources/timesync/CommandFailure.swift"), encoding: .utf8)
        let kinds = try #require(source.components(separatedBy: "enum Kind").dropFirst().first?.components(separatedBy: "\n    }\n").first)
        let names = kinds.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { $0.hasPrefix("case ") }
            .map { String($0.dropFirst("case ".count)) }
        #expect(names.count >= 15 && names.contains("invalidArgument") && names.contains("addressInUse"), "\(names)")
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        for name in names { #expect(readme.contains("| `\(name)` |"), "the README's errorType table lacks \(name)") }
    }

    @Test("the same source twice is a usage error, without the usage text")
    func duplicateSources() async throws {
        let port = try await freeUDPPort()
        let result = try await Self.run(["watch", "--duration", "1", "ntp://127.0.0.1:\(port)", "ntp://127.0.0.1:\(port)"])
        #expect(result.status == 64, "\(result)")
        #expect(result.stderr.contains("two sources are named 127.0.0.1:\(port)"), "\(result.stderr)")
        #expect(result.stderr.contains("Help: Give each source once."), "\(result.stderr)")
        #expect(!result.stderr.contains("Usage:"), "\(result.stderr)")
    }

    @Test("a refused HTTP connection names the server and the reason, and says what to do")
    func refusedHTTP() async throws {
        let port = try freeLoopbackPort()
        let url = "http://127.0.0.1:\(port)/"
        let text = try await Self.run(["query", url, "--samples", "1"])
        #expect(text.status == 1, "\(text)")
        #expect(text.stderr.contains("127.0.0.1:\(port) refused the connection"), "\(text.stderr)")
        #expect(text.stderr.contains("Help: Check the URL's port"), "\(text.stderr)")
        #expect(!text.stderr.contains("errno"), "\(text.stderr)")

        let json = try await Self.run(["query", url, "--samples", "1", "--json"])
        #expect(json.status == 1, "\(json)")
        let object = try Self.failureObject(json.stdout)
        #expect(object["errorType"] as? String == "refused")
        #expect(object["url"] as? String == url)
        #expect((object["error"] as? String)?.contains("127.0.0.1:\(port)") == true, "\(object)")
    }

    @Test("an NTP port nothing listens on is refused, with the port")
    func refusedNTP() async throws {
        let port = try await freeUDPPort()
        let json = try await Self.run(["query", "ntp://127.0.0.1:\(port)", "--json"])
        #expect(json.status == 1, "\(json)")
        let object = try Self.failureObject(json.stdout)
        #expect(object["errorType"] as? String == "refused")
        #expect((object["error"] as? String)?.contains("127.0.0.1:\(port)") == true, "\(object)")
        #expect((object["help"] as? String)?.isEmpty == false)
    }

    /// A key-exchange server whose host drops the connection's packets: the connection times out,
    /// and that is a timeout, not a refusal.
    @Test("an NTS-KE connection that is never made is a timeout, not refused")
    func ntsConnectTimeout() async throws {
        let listener = try UnansweredListener()
        defer { listener.close() }
        let run = try await Self.run(["query", "nts://127.0.0.1:\(listener.port)", "--timeout", "0.5", "--samples", "1", "--json"])
        #expect(run.status == 1, "\(run)")
        let object = try Self.failureObject(run.stdout)
        #expect(object["errorType"] as? String == "timeout", "\(object)")
        #expect((object["error"] as? String)?.contains("127.0.0.1:\(listener.port)") == true, "\(object)")
        #expect((object["help"] as? String)?.contains("--timeout") == true, "\(object)")
    }

    /// A negative number is the value of the option before it, with or without `=`.
    @Test("watch --deadline takes a negative number of Unix seconds without '='")
    func negativeDeadline() async throws {
        let server = try await FakeNTPServer.start { [goodReply(to: $0).encoded()] }
        defer { Task { await server.close() } }
        for deadline in [["--deadline", "-6999999999"], ["--deadline=-6999999999"]] {
            let run = try await Self.run(
                ["watch", "ntp://127.0.0.1:\(server.address.port!)", "--json", "--duration", "1", "--timeout", "0.5"] + deadline)
            #expect(run.status == 0, "\(deadline): \(run)")
            let line = run.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
                .first { $0["deadline"] != nil }
            let reported = try #require(line?["deadline"] as? [String: Any], "\(deadline): \(run)")
            #expect(reported["time"] as? String == "1748-03-06T11:33:21.000Z", "\(reported)")
            #expect(reported["certainlyPassed"] as? Bool == true, "\(reported)")
        }
    }

    @Test("a Kiss-o'-Death DENY is kissOfDeath, with its code")
    func kissOfDeath() async throws {
        let kissing = try await FakeNTPServer.start { request in
            var kiss = goodReply(to: request)
            kiss.stratum = 0
            kiss.referenceID = NTPReferenceID(ascii: "DENY")!
            return [kiss.encoded()]
        }
        defer { Task { await kissing.close() } }
        let json = try await Self.run(["query", "ntp://127.0.0.1:\(kissing.address.port!)", "--samples", "1", "--json"])
        #expect(json.status == 1, "\(json)")
        let object = try Self.failureObject(json.stdout)
        #expect(object["errorType"] as? String == "kissOfDeath")
        #expect((object["error"] as? String)?.contains("DENY") == true, "\(object)")
        #expect((object["help"] as? String)?.contains("another server") == true, "\(object)")
    }

    @Test("serve on a TCP port in use names the port and says what to do")
    func httpPortInUse() async throws {
        let listener = try LoopbackListener()
        defer { listener.close() }
        let result = try await Self.run(["serve", "--http", "127.0.0.1:\(listener.port)"])
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("TCP port \(listener.port) on 127.0.0.1 is already in use"), "\(result.stderr)")
        #expect(result.stderr.contains("Help: Stop the process that serves TCP port \(listener.port)"), "\(result.stderr)")
        #expect(!result.stderr.contains("bind(descriptor"), "\(result.stderr)")
    }

    @Test("serve --ntp on an address of no interface here says so once, typed, with what to do")
    func ntpAddressNotAvailable() async throws {
        // 192.0.2.1 is TEST-NET-1: never an address of this host.
        let result = try await Self.run(["serve", "--ntp", "192.0.2.1:12300"])
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("Error: 192.0.2.1 is not an address of this host: cannot bind UDP port 12300"), "\(result.stderr)")
        #expect(result.stderr.contains("Help: Give an address of this host"), "\(result.stderr)")
        #expect(!result.stderr.contains("could not bind"), "the error is reported once: \(result.stderr)")
    }

    @Test("a timesync server: https:// to its plain port is tlsFailure; the text lines give samples and delay as --help says")
    func againstAServer() async throws {
        let binary = try #require(Interop.timesyncBinary())
        let httpPort = try freeLoopbackPort()
        let ntpPort = try await freeUDPPort()
        let server = try ChildProcess(
            binary, ["serve", "--http", "127.0.0.1:\(httpPort)", "--ntp", "127.0.0.1:\(ntpPort)", "--local-stratum", "10", "--log-level", "error"])
        defer { server.stop() }
        #expect(try await server.wait(timeout: .seconds(20)) { isListening(port: httpPort) }, "\(server.stderr)")

        let tls = try await Self.run(["query", "https://127.0.0.1:\(httpPort)/time", "--samples", "1", "--json"])
        #expect(tls.status == 1, "\(tls)")
        let object = try Self.failureObject(tls.stdout)
        #expect(object["errorType"] as? String == "tlsFailure")
        #expect((object["error"] as? String)?.contains("TLS handshake with 127.0.0.1:\(httpPort)") == true, "\(object)")
        #expect((object["help"] as? String)?.contains("http://") == true, "\(object)")
        #expect(!tls.stdout.contains("BoringSSL") && !tls.stderr.contains("BoringSSL"), "\(tls)")

        // `--samples 4` is four samples with either header.
        let date = try await Self.run(["query", "http://127.0.0.1:\(httpPort)/time", "--samples", "4", "--date-only"])
        #expect(date.status == 0, "\(date)")
        #expect(date.stdout.contains("  method date  samples 4  requests 4  delay "), "\(date.stdout)")
        let header = try await Self.run(["query", "http://127.0.0.1:\(httpPort)/time", "--samples", "4"])
        #expect(header.status == 0, "\(header)")
        #expect(header.stdout.contains("  method header  samples 4  requests 5  delay "), "\(header.stdout)")

        // The NTP line, every value named: offset ± error, server, address, stratum, leap, samples, delay.
        let ntp = try await Self.run(["query", "ntp://127.0.0.1:\(ntpPort)", "--samples", "2"])
        #expect(ntp.status == 0, "\(ntp)")
        #expect(ntp.stdout.contains("  server 127.0.0.1:\(ntpPort)  address 127.0.0.1  stratum 10  leap none  samples 2  delay "), "\(ntp.stdout)")
        #expect(ntp.stdout.range(of: #"^\d{4}-\d\d-\d\dT[0-9:.]+Z  offset [+-]\d+\.\d{6} s ± \d+\.\d{6} s  "#, options: .regularExpression) != nil, "\(ntp.stdout)")
        #expect(ntp.stdout.hasSuffix(" s\n"), "the delay's unit ends the line: \(ntp.stdout)")
    }
}
#endif
