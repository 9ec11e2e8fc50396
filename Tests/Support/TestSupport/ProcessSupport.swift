#if CLI
import Foundation
import TimeSync

/// The real clocks with the wall clock moved by `shift`: an in-process server "under faketime".
package struct ShiftedTimeBase: TimeBase {
    package let shift: Duration
    package init(shift: Duration) { self.shift = shift }
    private let base = SystemTimeBase()
    package func monotonicNow() -> MonotonicInstant { base.monotonicNow() }
    package func wallNow() -> UnixTime { base.wallNow().advanced(by: shift) }
    package func sleep(until deadline: MonotonicInstant) async throws { try await base.sleep(until: deadline) }
    package var bootSessionID: String? { base.bootSessionID }
}

/// External tools for the interoperability tests.
package enum Interop {
    /// libfaketime's preload library (from the `faketime` package), or `nil`.
    package static func libfaketime() -> String? {
        let candidates = [
            "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1", "/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1",
            "/usr/lib/faketime/libfaketime.so.1", "/usr/local/lib/faketime/libfaketime.so.1",
        ]
        return candidates.first { FileManager.default.fileExists(atPath: $0) }
    }

    /// The environment that runs a child under libfaketime with its wall clock moved by `spec` (e.g.
    /// `+2.345s`) and its monotonic clock untouched. Preloading directly (instead of the `faketime`
    /// wrapper) keeps the server itself the child, so stopping the child stops the server.
    package static func fakeTimeEnvironment(_ spec: String) throws -> [String: String] {
        guard let library = libfaketime() else { throw POSIXError(.ENOENT) }
        return ["LD_PRELOAD": library, "FAKETIME": spec, "FAKETIME_DONT_FAKE_MONOTONIC": "1", "FAKETIME_NO_CACHE": "1"]
    }

    /// `TIMESYNC_REQUIRE_INTEROP=1` (set by `scripts/test`): missing tools fail the tests instead of
    /// skipping them.
    package static let required = ProcessInfo.processInfo.environment["TIMESYNC_REQUIRE_INTEROP"] == "1"

    /// The absolute path of an executable on `PATH`, or `nil`.
    package static func find(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        for directory in ["/usr/sbin", "/sbin", "/usr/local/sbin"] where FileManager.default.isExecutableFile(atPath: "\(directory)/\(name)") {
            return "\(directory)/\(name)"
        }
        return nil
    }

    /// Whether a test needing `tools` should run: always when required (it then fails on a missing
    /// tool), otherwise only when every tool is there.
    package static func shouldRun(_ tools: [String]) -> Bool {
        required || tools.allSatisfy { find($0) != nil }
    }

    /// The repository root (four levels above this file).
    package static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// `chronyd`, or `nil` when it is not installed.
    package static let chronyd = find("chronyd")
    /// `faketime`, or `nil` when it is not installed.
    package static let faketime = find("faketime")

    /// The built `timesync` executable next to the test bundle (the scratch path's debug folder),
    /// or `TIMESYNC_BINARY`.
    package static func timesyncBinary() -> String? {
        if let explicit = ProcessInfo.processInfo.environment["TIMESYNC_BINARY"] { return explicit }
        let testBinary = URL(fileURLWithPath: CommandLine.arguments.first ?? "")
        var candidates = [testBinary.deletingLastPathComponent().appendingPathComponent("timesync").path]
        for scratch in [".build-http", ".build"] {
            candidates.append(packageRoot.appendingPathComponent("\(scratch)/debug/timesync").path)
        }
        // Inside an .xctest bundle on Darwin the executable is three levels deeper.
        candidates.append(
            testBinary.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("timesync").path)
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}

/// A child process whose stdout and stderr go to temporary files; terminated (and reaped) by
/// ``stop()``, which tests call in a `defer`.
package final class ChildProcess {
    package let process = Process()
    package let stdoutURL: URL
    package let stderrURL: URL

    /// Starts `executable` with `arguments` and extra `environment` variables.
    package init(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("timesync-http-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        stdoutURL = directory.appendingPathComponent("stdout")
        stderrURL = directory.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: stdoutURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrURL.path, contents: nil)
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = try FileHandle(forWritingTo: stdoutURL)
        process.standardError = try FileHandle(forWritingTo: stderrURL)
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    package var stdout: String { (try? String(contentsOf: stdoutURL, encoding: .utf8)) ?? "" }
    package var stderr: String { (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? "" }

    /// Waits (polling) until `condition` holds or the process exits or `timeout` passes.
    package func wait(timeout: Duration = .seconds(10), until condition: () -> Bool) async throws -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while clock.now < deadline {
            if condition() { return true }
            if !process.isRunning { return condition() }
            try await Task.sleep(for: .milliseconds(20))
        }
        return condition()
    }

    /// Terminates the process (SIGTERM, then SIGKILL after two seconds) and waits for it to end.
    package func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGTERM)
            let deadline = Date().addingTimeInterval(2)
            while process.isRunning, Date() < deadline { usleep(10_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            let hardDeadline = Date().addingTimeInterval(2)
            while process.isRunning, Date() < hardDeadline { usleep(10_000) }
        }
        try? FileManager.default.removeItem(at: stdoutURL.deletingLastPathComponent())
    }

    /// Runs a command to completion and returns its exit status and output.
    package static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:], timeout: Duration = .seconds(30))
        async throws -> (status: Int32, stdout: String, stderr: String)
    {
        let child = try ChildProcess(executable, arguments, environment: environment)
        defer { child.stop() }
        _ = try await child.wait(timeout: timeout) { !child.process.isRunning }
        let out = child.stdout
        let err = child.stderr
        if child.process.isRunning { return (-1, out, err) }
        return (child.process.terminationStatus, out, err)
    }
}

/// A TCP socket bound to 127.0.0.1 on a port the kernel picks, listening when asked.
/// - Returns: The descriptor (the caller closes it) and the port.
private func boundLoopbackSocket(listening: Bool, backlog: Int32 = 8) throws -> (descriptor: Int32, port: Int) {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw POSIXError(.EMFILE) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
    }
    let named = bound == 0 && (!listening || listen(fd, backlog) == 0)
        && withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        } == 0
    guard named else {
        close(fd)
        throw POSIXError(.EADDRINUSE)
    }
    return (fd, Int(UInt16(bigEndian: address.sin_port)))
}

/// A free TCP port on 127.0.0.1 (bound and released; good enough for a child that binds it next).
package func freeLoopbackPort() throws -> Int {
    let (descriptor, port) = try boundLoopbackSocket(listening: false)
    close(descriptor)
    return port
}

/// A TCP socket listening on 127.0.0.1 on a port the kernel picks (never accepting), closed by
/// ``close()``: a port in use.
package final class LoopbackListener {
    package let descriptor: Int32
    package let port: Int

    package init() throws {
        (descriptor, port) = try boundLoopbackSocket(listening: true)
    }

    package func close() { _ = closeDescriptor(descriptor) }
}

/// A TCP port on 127.0.0.1 where no connection is ever made: its listener's queue holds one
/// connection, that one is taken, and nothing accepts, so the kernel drops every new SYN. A client's
/// connection attempt times out, as one to a host behind a firewall that drops packets does.
/// Closed by ``close()``.
package final class UnansweredListener {
    package let port: Int
    private let listener: Int32
    private let filler: Int32

    package init() throws {
        (listener, port) = try boundLoopbackSocket(listening: true, backlog: 0)
        filler = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard filler >= 0, connectLoopback(filler, port: port) == 0 else {
            close()
            throw POSIXError(.ECONNREFUSED)
        }
    }

    package func close() {
        if filler >= 0 { _ = closeDescriptor(filler) }
        _ = closeDescriptor(listener)
    }
}

private func closeDescriptor(_ descriptor: Int32) -> Int32 { close(descriptor) }

/// Whether something accepts TCP connections on 127.0.0.1:`port`.
package func isListening(port: Int) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    return connectLoopback(fd, port: port) == 0
}

/// Connects a TCP socket to 127.0.0.1:`port`; `connect(2)`'s result.
private func connectLoopback(_ fd: Int32, port: Int) -> Int32 {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = UInt16(port).bigEndian
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
}
#endif
