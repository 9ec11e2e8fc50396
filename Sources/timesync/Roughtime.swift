#if CLI
import ArgumentParser
import Crypto
import Foundation
import TimeSync
import TimeSyncWire
import TimeSyncNTP
import TimeSyncRoughtime

/// `timesync roughtime`: signed time you can prove wrong (RFC 10049).
struct Roughtime: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Roughtime: query servers (chained), verify a misbehaviour report, make and show keys.",
        subcommands: [RoughtimeQuery.self, RoughtimeVerify.self, RoughtimeKeygen.self, RoughtimePubkey.self])
}

extension RoughtimeServerURL {
    /// Parses a URL given to a command: a malformed URL is a usage error that says what to give; a
    /// key that is not one stays the library's `RoughtimeError.badKey`.
    static func command(_ text: String) throws -> RoughtimeServerURL {
        do {
            return try RoughtimeServerURL(text)
        } catch {
            throw CommandFailure.roughtimeURL(error) ?? error
        }
    }
}

struct RoughtimeQuery: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Query Roughtime servers, each reply verified under its pinned key; several servers are chained.",
        discussion: """
            Prints one line per server: the signed midpoint, the radius, the offset of this machine's \
            wall clock, the version. With several servers each nonce is H(previous reply ‖ random), so \
            the order is provable; when two signed intervals cannot both be true the command writes a \
            misbehaviour report (--report FILE, verify it with 'timesync roughtime verify') and exits 1.
            """)

    @Argument(help: "roughtime://HOST:PORT?key=BASE64[&versions=1,0x8000000c] (one or more).")
    var urls: [String]
    @Option(parsing: .unconditional, help: "Seconds to wait for each server.") var timeout: Double = 5
    @Option(help: "Where to write the chain as a report (JSON).") var report: String?
    @Flag(help: "Use loopback and private addresses a name resolves to.") var allowLocalAddresses = false
    @Flag(help: "Print JSON.") var json = false

    func validate() throws {
        guard timeout > 0, timeout <= 60 else { throw ValidationError("--timeout must be in (0, 60] seconds") }
    }

    func run() async throws {
        let servers = try urls.map(RoughtimeServerURL.command)
        var chain = RoughtimeChain()
        var generator = SystemRandomNumberGenerator()
        var lines: [[String: String]] = []
        for server in servers {
            let client = RoughtimeClient(server, addressPolicy: allowLocalAddresses ? .allowingLocal : .publicOnly)
            let blind = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let chained = !server.versions.contains(.google)
            let exchange: RoughtimeClient.Exchange
            do {
                exchange = try await client.exchange(nonce: chained ? chain.nonce(blind: blind) : nil, timeout: .seconds(double: timeout))
            } catch let error as NTPClientError where error.code == .unreachable {
                throw roughtimeRefused(server)
            } catch {
                throw CommandFailure.from(error, server: server.description)
            }
            if chained { chain.append(publicKey: server.publicKey, blind: blind, request: exchange.request, response: exchange.response) }
            let response = exchange.response
            let wall = SystemTimeBase().wallNow()
            let offset = Duration.nanoseconds(response.midpoint.nanoseconds.saturatingSubtract(wall.nanoseconds))
            lines.append([
                "url": server.description, "midpoint": "\(response.midpoint)", "radius": response.radius.readable,
                "offset": offset.signedReadable, "version": "\(response.version)", "address": "\(exchange.address)",
            ])
            if !json {
                print("\(server.description) \(response.midpoint) ± \(response.radius.readable) offset \(offset.signedReadable) version \(response.version)")
            }
        }
        let violations = chain.violations
        if let report { try chain.report.json().write(to: URL(fileURLWithPath: report)) }
        if json {
            print(String(decoding: try JSONSerialization.data(withJSONObject: ["servers": lines, "violations": violations.map(\.description)], options: [.sortedKeys]), as: UTF8.self))
        }
        guard violations.isEmpty else {
            throw CommandFailure(
                kind: .noMajority, message: "signed replies contradict their order: " + violations.map(\.description).joined(separator: "; "),
                help: report.map { "The proof is in \($0): 'timesync roughtime verify \($0)' checks it." } ?? "Give --report FILE to keep the proof.")
        }
    }
}

struct RoughtimeVerify: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Verify a misbehaviour report: every reply, the chain of nonces, and the contradiction it claims.",
        discussion: "Exit status 0 when the report proves misbehaviour, 1 when it does not verify or proves nothing.")

    @Argument(help: "The report (JSON: {\"responses\": [{rand, publicKey, request, response}]}).") var file: String

    func run() async throws {
        guard let data = FileManager.default.contents(atPath: file) else {
            throw CommandFailure.invalidArgument("cannot read \(file)", help: "Give the path of a report file.")
        }
        let verdict: RoughtimeReport.Verdict
        do { verdict = try RoughtimeReport(json: data).verify() } catch { throw CommandFailure.from(error) }
        for (index, response) in verdict.responses.enumerated() {
            print("reply \(index + 1): \(response.midpoint) ± \(response.radius.readable), version \(response.version), verified")
        }
        guard !verdict.violations.isEmpty else {
            throw CommandFailure(kind: .failed, message: "the report is authentic but proves no misbehaviour: every reply is consistent with its order", help: "Nothing to report.")
        }
        for violation in verdict.violations { print("misbehaviour: \(violation)") }
    }
}

struct RoughtimeKeygen: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keygen", abstract: "Write a new long-term private key to FILE (mode 0600) and print its public key in base64.")

    @Option(help: "The key file to create (refused if it exists).") var out: String

    func run() async throws {
        guard !FileManager.default.fileExists(atPath: out) else {
            throw CommandFailure.invalidArgument("\(out) exists", help: "Choose another path; an existing key is never overwritten.")
        }
        let key = Curve25519.Signing.PrivateKey()
        let text = RoughtimeKeyText.fileContents(key)
        guard FileManager.default.createFile(atPath: out, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw CommandFailure(kind: .failed, message: "cannot create \(out)", help: "Check that the folder exists and is writable.")
        }
        print(RoughtimeKeyText.base64(key.publicKey))
    }
}

struct RoughtimePubkey: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "pubkey", abstract: "Print the public key (base64) of a long-term private key file.")

    @Argument(help: "The key file.") var file: String

    func run() async throws {
        do {
            print(RoughtimeKeyText.base64(try RoughtimeKeyText.privateKey(file: file).publicKey))
        } catch {
            throw CommandFailure.from(error)
        }
    }
}
#endif
