import Foundation
import Testing
import TimeSync
import TimeSyncNTP
import TimeSyncTestSupport

/// Roughtime against a real peer: PyPI `roughly` 0.3.0's server (installed by
/// `scripts/install-test-deps` in its own venv), queried by our client and our CLI, one server or
/// chained, with a liar under libfaketime caught and proven.
@Suite(.serialized) struct RoughtimeInteropTests {
    static let roughly = "/opt/timesync-test-deps/roughly-venv/bin/roughly"
    static var available: Bool { Interop.required || FileManager.default.isExecutableFile(atPath: roughly) }
    /// The Ed25519 seed 00 01 … 1f and its public key.
    static let privateKey = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="
    static let publicKey = "A6EHv/POEL4dcN0Y50vAmWfk1jCbpQ1fHdyGZBJVMbg="

    /// A `roughly` server on a free loopback port (its wall clock moved by `fakeTime`, e.g. `+3600s`),
    /// for the duration of `body`; stopped by PID.
    static func withRoughly<T>(fakeTime: String? = nil, _ body: (Int) async throws -> T) async throws -> T {
        #expect(FileManager.default.isExecutableFile(atPath: roughly), "roughly is missing: run scripts/install-test-deps")
        let port = try await freeUDPPort()
        let environment = try fakeTime.map(Interop.fakeTimeEnvironment) ?? [:]
        let server = try ChildProcess(
            roughly, ["server", "run", "--host", "127.0.0.1", "--port", "\(port)", "--private-key", privateKey, "--no-grease"],
            environment: environment)
        defer { server.stop() }
        let started = try await server.wait(timeout: .seconds(20)) { server.stdout.contains("Starting Roughtime server") }
        #expect(started, "roughly did not start: \(server.stdout) \(server.stderr)")
        #expect(server.stdout.contains("Server public key (base64): \(publicKey)"))
        try await Task.sleep(for: .milliseconds(300))  // it binds right after printing
        return try await body(port)
    }

    static func client(port: Int, versions: [RoughtimeVersion]) -> RoughtimeClient {
        RoughtimeClient(
            host: "127.0.0.1", port: port, publicKey: Array(Data(base64Encoded: publicKey)!), versions: versions, addressPolicy: .allowingLocal)
    }

    @Test(.enabled(if: available), arguments: [[RoughtimeVersion.draft14], [.draft11]])
    func ourClientVerifiesRoughlysServer(versions: [RoughtimeVersion]) async throws {
        try await Self.withRoughly { port in
            let exchange = try await Self.client(port: port, versions: versions).exchange(timeout: .seconds(5))
            #expect(exchange.response.version == versions[0])
            #expect(exchange.response.radius == .seconds(3))
            let offset = exchange.response.midpoint.nanoseconds - SystemTimeBase().wallNow().nanoseconds
            #expect(abs(offset) <= 4_000_000_000, "roughly's midpoint is a whole second within its radius of this machine's clock")
            let sample = try exchange.sample(source: "roughtime://roughly")
            #expect(sample.offset.width >= 6_000_000_000)
        }
    }

    /// Offered version 1 first, `roughly` answers in version 1, signed with the context strings
    /// `Roughtime v1 …`; RFC 10049's own example (Appendix B) is signed with `RoughTime v1 …`, which
    /// this side follows. The reply does not verify, and no time comes out of it.
    @Test(.enabled(if: available)) func roughlysVersion1RepliesUseOtherContextStrings() async throws {
        try await Self.withRoughly { port in
            do {
                _ = try await Self.client(port: port, versions: [.rfc]).exchange(timeout: .seconds(2))
                Issue.record("a version-1 reply from roughly verified")
            } catch let error as RoughtimeError {
                #expect(error == .timeout)
                #expect(error.detail.contains("delegation is not signed"))
            }
        }
    }

    /// Two servers chained through the CLI: consistent, the report proves nothing. Then a liar an
    /// hour ahead answers first and an honest server second: the query fails, writes the report,
    /// and `roughtime verify` proves the misbehaviour from the file alone.
    @Test(.enabled(if: available)) func aChainCatchesALiarAndItsReportVerifies() async throws {
        let timesync = try #require(Interop.timesyncBinary(), "build the timesync executable (swift build --traits CLI)")
        let directory = try makeTemporaryDirectory()
        try await Self.withRoughly { honest in
            try await Self.withRoughly(fakeTime: "+3600s") { liar in
                func url(_ port: Int) -> String { "roughtime://127.0.0.1:\(port)?key=\(Self.publicKey)&versions=0x8000000c" }
                let consistent = try await ChildProcess.run(
                    timesync, ["roughtime", "query", url(honest), url(honest), "--allow-local-addresses", "--report", directory + "/ok.json"])
                #expect(consistent.status == 0, "\(consistent.stderr)")
                #expect(consistent.stdout.split(separator: "\n").count == 2)
                let nothing = try await ChildProcess.run(timesync, ["roughtime", "verify", directory + "/ok.json"])
                #expect(nothing.status == 1)
                #expect(nothing.stderr.contains("proves no misbehaviour"))

                let caught = try await ChildProcess.run(
                    timesync, ["roughtime", "query", url(liar), url(honest), "--allow-local-addresses", "--report", directory + "/liar.json"])
                #expect(caught.status == 1)
                #expect(caught.stderr.contains("contradict their order"), "\(caught.stderr)")
                let proof = try await ChildProcess.run(timesync, ["roughtime", "verify", directory + "/liar.json"])
                #expect(proof.status == 0, "\(proof.stderr)")
                #expect(proof.stdout.contains("misbehaviour: reply 1 says the time was at least"))
            }
        }
    }
}
