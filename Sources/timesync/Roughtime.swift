#if CLI
import ArgumentParser
import Crypto
import Foundation
import TimeSync
import TimeSyncNTP
import TimeSyncNTS
import TimeSyncRoughtime

/// `timesync roughtime`: signed time you can prove wrong (RFC 10049).
struct Roughtime: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Roughtime: query servers (chained), verify a misbehaviour report, make and show keys.",
        subcommands: [RoughtimeQuery.self, RoughtimeVerify.self, RoughtimeKeygen.self, RoughtimePubkey.self])
}

/// `roughtime://HOST:PORT?key=BASE64[&versions=1,0x8000000c]`.
struct RoughtimeURL: Sendable {
    var host: String
    var port: Int
    var publicKey: [UInt8]
    var versions: [RoughtimeVersion]

    init(_ text: String) throws {
        guard text.lowercased().hasPrefix("roughtime://"), let components = URLComponents(string: text), let host = components.host,
            !host.isEmpty, let port = components.port
        else {
            throw CommandFailure.invalidArgument(
                "'\(text)' is not a roughtime://HOST:PORT?key=BASE64 URL", help: "e.g. roughtime://roughtime.example:2002?key=AW5uAoTSTDfG5NfY1bTh08GUnOqlRb+HVhbJ3ODJvsE=")
        }
        // A `+` in base64 is a space to a query-string decoder: read the raw value.
        let items = (components.percentEncodedQuery ?? "").split(separator: "&").map { $0.split(separator: "=", maxSplits: 1).map(String.init) }
        guard let key = items.first(where: { $0.first == "key" && $0.count == 2 })?[1] else {
            throw CommandFailure.invalidArgument("'\(text)' has no key=", help: "Pin the server's long-term public key: ?key=BASE64.")
        }
        publicKey = try RoughtimeKeyText.publicKey(key.removingPercentEncoding ?? key)
        if let list = items.first(where: { $0.first == "versions" && $0.count == 2 })?[1] {
            versions = try list.split(separator: ",").map {
                guard let version = RoughtimeVersion(name: String($0)) else {
                    throw CommandFailure.invalidArgument("unknown Roughtime version '\($0)'", help: "Versions: 1, 0x8000000c, 0x8000000b, 0x80000008, google.")
                }
                return version
            }
        } else {
            versions = RoughtimeVersion.defaultOffer
        }
        self.host = host.trimmingCharacters(in: ["[", "]"])
        self.port = port
    }

    var description: String { "roughtime://" + HostPort.format(host: host, port: port) }

    /// What is wrong with a URL ``init(_:)`` refused, and what to give instead.
    static func problem(_ error: any Error) -> String {
        if let failure = error as? CommandFailure { return "\(failure.message); \(failure.help)" }
        return "\(error); give roughtime://HOST:PORT?key=BASE64, the server's 32-byte public key"
    }
}

/// Keys as text: base64 or hex of 32 bytes.
enum RoughtimeKeyText {
    static func publicKey(_ text: String) throws(RoughtimeError) -> [UInt8] {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if let data = Data(base64Encoded: trimmed), data.count == 32 { return Array(data) }
        if trimmed.count == 64, let bytes = Hex.decode(trimmed[...]) { return bytes }
        throw RoughtimeError(.badKey, "'\(trimmed)' is not 32 bytes of base64 or hex")
    }

    /// A long-term private key file: the 32-byte seed in base64 on one line.
    static func privateKey(file: String) throws(RoughtimeError) -> Curve25519.Signing.PrivateKey {
        guard let data = FileManager.default.contents(atPath: file) else { throw RoughtimeError(.badKey, "cannot read \(file)") }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let seed = Data(base64Encoded: text), seed.count == 32, let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: seed) else {
            throw RoughtimeError(.badKey, "\(file) does not hold a 32-byte key in base64")
        }
        return key
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
    @Option(help: "Seconds to wait for each server.") var timeout: Double = 5
    @Option(help: "Where to write the chain as a report (JSON).") var report: String?
    @Flag(help: "Use loopback and private addresses a name resolves to.") var allowLocalAddresses = false
    @Flag(help: "Print JSON.") var json = false

    func validate() throws {
        guard timeout > 0, timeout <= 60 else { throw ValidationError("--timeout must be in (0, 60] seconds") }
    }

    func run() async throws {
        let servers = try urls.map(RoughtimeURL.init)
        var chain = RoughtimeChain()
        var generator = SystemRandomNumberGenerator()
        var lines: [[String: String]] = []
        for server in servers {
            let client = RoughtimeClient(
                host: server.host, port: server.port, publicKey: server.publicKey, versions: server.versions,
                addressPolicy: allowLocalAddresses ? .allowingLocal : .publicOnly)
            let blind = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let chained = !server.versions.contains(.google)
            let exchange: RoughtimeClient.Exchange
            do {
                exchange = try await roughtimeExchange(client, server: server, nonce: chained ? chain.nonce(blind: blind) : nil, timeout: timeout)
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
        let text = Data(key.rawRepresentation).base64EncodedString() + "\n"
        guard FileManager.default.createFile(atPath: out, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw CommandFailure(kind: .failed, message: "cannot create \(out)", help: "Check that the folder exists and is writable.")
        }
        print(Data(key.publicKey.rawRepresentation).base64EncodedString())
    }
}

struct RoughtimePubkey: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "pubkey", abstract: "Print the public key (base64) of a long-term private key file.")

    @Argument(help: "The key file.") var file: String

    func run() async throws {
        do {
            print(Data(try RoughtimeKeyText.privateKey(file: file).publicKey.rawRepresentation).base64EncodedString())
        } catch {
            throw CommandFailure.from(error)
        }
    }
}
#endif
