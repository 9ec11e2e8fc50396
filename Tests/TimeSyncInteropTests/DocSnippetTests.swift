#if CLI
import Foundation
import Logging
import Testing
import TimeSync
import TimeSyncTestSupport
import TimeSyncAsyncHTTPClient
import TimeSyncHTTP

/// The Node and Python snippets of `docs/http-time-header.md`, extracted and run as real servers
/// under faketime: the documented wire format is what the client reads.
@Suite("docs/http-time-header.md snippets", .serialized)
struct DocSnippetTests {
    static let documentation = Interop.packageRoot.appendingPathComponent("docs/http-time-header.md")

    /// The first fenced block of `language` in the document.
    static func snippet(_ language: String) throws -> String {
        let text = try String(contentsOf: documentation, encoding: .utf8)
        let fence = "```\(language)\n"
        guard let start = text.range(of: fence), let end = text.range(of: "```", range: start.upperBound..<text.endIndex) else {
            throw TestFailure("no \(language) block in \(documentation.path)")
        }
        return String(text[start.upperBound..<end.lowerBound])
    }

    static let pythonHarness = """

        import sys
        from wsgiref.simple_server import make_server, WSGIRequestHandler
        class Quiet(WSGIRequestHandler):
            def log_message(self, *args): pass
        def app(environ, start_response):
            start_response("200 OK", [("Content-Type", "text/plain"), ("Cache-Control", "no-store")])
            return [b"ok"]
        server = make_server("127.0.0.1", 0, TimeSyncMiddleware(app), handler_class=Quiet)
        print(server.server_port, flush=True)
        server.serve_forever()
        """

    static let nodeHarness = """

        const http = require('node:http');
        const server = http.createServer((req, res) => { timeSync(req, res); res.end('ok'); });
        server.keepAliveTimeout = 10000;
        // The snippet's clock is performance.timeOrigin + performance.now(), fixed when the process
        // started; it can differ from Date.now() (the shifted wall clock) by a few ms when the start
        // was slow. Print how far, so the test measures against the clock the header reports.
        let drift = 0;
        for (let i = 0; i < 5; i++) drift += (performance.timeOrigin + performance.now()) - Date.now();
        server.listen(0, '127.0.0.1', () => console.log(`${server.address().port} ${(drift / 5).toFixed(3)}`));
        """

    static let goHarness = """
        package main

        import (
        	"fmt"
        	"net"
        	"net/http"
        	"regexp"
        	"time"
        )

        %SNIPPET%
        func main() {
        	l, err := net.Listen("tcp", "127.0.0.1:0")
        	if err != nil {
        		panic(err)
        	}
        	fmt.Println(l.Addr().(*net.TCPAddr).Port)
        	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) })
        	http.Serve(l, TimeSync(ok))
        }
        """

    /// Runs `interpreter file` under faketime and measures it with the own header.
    func measure(interpreter: String, source: String, fileExtension: String) async throws {
        let environment = try InteropTests.faketimeEnvironment()
        let executable = try #require(Interop.find(interpreter), "\(interpreter) is missing")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("timesync-doc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("server.\(fileExtension)")
        try source.write(to: file, atomically: true, encoding: .utf8)
        let server = try ChildProcess(executable, [file.path], environment: environment)
        defer { server.stop() }
        try await measure(server: server, shift: InteropTests.shift, label: interpreter)
    }

    /// Waits for `server` to print its port, then measures it with the own header.
    func measure(server: ChildProcess, shift: Duration, label: String) async throws {
        func fields() -> [Substring] { server.stdout.split(whereSeparator: \.isWhitespace) }
        let started = try await server.wait { fields().first.flatMap { Int($0) } != nil }
        let port = try #require(started ? fields().first.flatMap { Int($0) } : nil, "\(server.stderr)")
        // A server that reports how far its clock is from its wall clock (Node, whose Date.now() has
        // millisecond resolution: the truth is then known to ±0.5 ms).
        let drift = fields().dropFirst().first.flatMap { Double($0) }
        let truth = shift.nanosecondsClamped + Int64(((drift ?? 0.5) - 0.5) * 1e6)
        let slack: Int64 = drift == nil ? 0 : 500_000

        let http = HTTPTimeSource.makeClient()
        defer { _ = http.shutdown() }
        let timeBase = SystemTimeBase()
        let source = try HTTPTimeSource(
            url: "http://127.0.0.1:\(port)/", client: http, policy: .timeHeaderOnly, timeBase: timeBase, logger: Logger(label: "client"))
        let measurement = try await source.measure(samples: 6)
        let wallOffset = measurement.wallOffset(timeBase.wallClockPair())
        let (offset, bounds) = (wallOffset.estimate.nanosecondsClamped, wallOffset.bounds)
        let error = offset - truth
        print("\(label) snippet, shift \(shift)\(drift.map { ", its clock \($0) ms from its wall clock" } ?? ""): error \(Double(error) / 1e6) ms, bounds ±\(Double(bounds.halfWidth) / 1e6) ms")
        #expect(measurement.rejected == 0)
        #expect(abs(error) < 2_000_000)
        #expect(bounds.widened(by: slack).contains(truth))
    }

    @Test("the Python WSGI snippet", .enabled(if: Interop.shouldRun(["faketime", "python3"])))
    func python() async throws {
        try await measure(interpreter: "python3", source: Self.snippet("python") + Self.pythonHarness, fileExtension: "py")
    }

    @Test("the Node snippet", .enabled(if: Interop.find("node") != nil && Interop.find("faketime") != nil))
    func node() async throws {
        try await measure(interpreter: "node", source: Self.snippet("js") + Self.nodeHarness, fileExtension: "js")
    }

    /// Go programs make their own system calls, so libfaketime cannot shift them: the Go snippet is
    /// measured against the unshifted clock (offset 0).
    @Test("the Go snippet (unshifted)", .enabled(if: Interop.find("go") != nil))
    func go() async throws {
        let goTool = try #require(Interop.find("go"))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("timesync-go-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("server.go")
        try Self.goHarness.replacingOccurrences(of: "%SNIPPET%", with: Self.snippet("go")).write(to: file, atomically: true, encoding: .utf8)
        let binary = directory.appendingPathComponent("server").path
        let build = try await ChildProcess.run(
            goTool, ["build", "-o", binary, file.path],
            environment: ["GOCACHE": directory.appendingPathComponent("cache").path, "GOPATH": directory.appendingPathComponent("gopath").path,
                          "HOME": directory.path],
            timeout: .seconds(120))
        try #require(build.status == 0, "go build failed: \(build.stderr)")
        let server = try ChildProcess(binary, [])
        defer { server.stop() }
        try await measure(server: server, shift: .zero, label: "go")
    }
}
#endif
