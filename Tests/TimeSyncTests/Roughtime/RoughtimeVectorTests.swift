import Crypto
import Foundation
import Testing
import TimeSync
import TimeSyncWire
import TimeSyncFixtures

/// Every published vector that verifies, verified; the ones published for parsing, parsed and
/// re-encoded byte for byte.
@Suite struct RoughtimeVectorTests {
    static let int08hKey = Array(Data(base64Encoded: "AW5uAoTSTDfG5NfY1bTh08GUnOqlRb+HVhbJ3ODJvsE=")!)

    /// The files are the published bytes: each matches its line in `SHA256SUMS`, and every file in
    /// the folder (but the README) has one.
    @Test func everyVectorMatchesItsChecksum() throws {
        let sums = try RoughtimeVectors.checksums()
        #expect(sums.count == 38)
        for (digest, path) in sums {
            #expect(RoughtimeVectors.sha256(try RoughtimeVectors.bytes(path)) == digest, "\(path)")
        }
        let root = RoughtimeVectors.directory.resolvingSymlinksInPath().path
        let files = try #require(FileManager.default.enumerator(atPath: root)).compactMap { $0 as? String }
            .filter { name in
                var directory: ObjCBool = false
                return FileManager.default.fileExists(atPath: root + "/" + name, isDirectory: &directory) && !directory.boolValue
            }
        #expect(Set(files).subtracting(["SHA256SUMS", "README.md"]) == Set(sums.map(\.path)))
    }

    @Test func roughenoughPairVerifiesAt0x8000000c() throws {
        let request = try RoughtimeRequest(parsing: try RoughtimeVectors.bytes("roughenough/rfc-request.071039e5"))
        #expect(request.versions == [.draft14])
        let response = try RoughtimeResponse.verify(
            try RoughtimeVectors.bytes("roughenough/rfc-response.071039e5"), request: request, publicKey: Self.int08hKey)
        #expect(response.version == .draft14)
        #expect(response.midpointValue == 1_747_944_450)
        #expect(response.radiusValue == 5)
        #expect(response.midpoint == UnixTime(seconds: 1_747_944_450))
        #expect(response.serverVersions == [0, 0x8000_000c])
        #expect(response.validity == 0...UInt64.max)
    }

    @Test func roughenoughPairFailsUnderAnotherKeyOrNonce() throws {
        let packet = try RoughtimeVectors.bytes("roughenough/rfc-request.071039e5")
        let request = try RoughtimeRequest(parsing: packet)
        let reply = try RoughtimeVectors.bytes("roughenough/rfc-response.071039e5")
        let otherKey = Array(Curve25519.Signing.PrivateKey().publicKey.rawRepresentation)
        expectThrows(RoughtimeError.badDelegationSignature) { try RoughtimeResponse.verify(reply, request: request, publicKey: otherKey) }
        // The same request with one padding byte changed: the nonce matches, the leaf does not.
        var edited = packet
        edited[edited.count - 1] ^= 1
        expectThrows(RoughtimeError.merkleMismatch) {
            try RoughtimeResponse.verify(reply, request: try RoughtimeRequest(parsing: edited), publicKey: Self.int08hKey)
        }
    }

    /// Published for parsing: its root key and request are not. Its SREP signature verifies under
    /// its own delegated key, and its eight-node path parses.
    @Test func roughenoughPathOfEightParsesAndItsSignedResponseVerifies() throws {
        let packet = try RoughtimeVectors.bytes("roughenough/rfc-response.path8.index2.4c16c619")
        let message = try RoughtimeMessage(decoding: try RoughtimePacket.unframe(packet[...]))
        #expect(try message.value(.path).count == 8 * 32)
        #expect(try message.uint32(.index) == 2)
        let signedResponse = try message.message(.signedResponse)
        #expect(try signedResponse.uint64(.midpoint) == 1_748_359_193)
        let delegation = try message.message(.certificate).message(.delegation)
        let key = try Curve25519.Signing.PublicKey(rawRepresentation: try delegation.value(.publicKey, length: 32))
        #expect(key.isValidSignature(try message.value(.signature), for: RoughtimeVersion.responseContext + signedResponse.bytes))
        #expect(try (delegation.uint64(.minimumTime)...delegation.uint64(.maximumTime)).contains(signedResponse.uint64(.midpoint)))
    }

    @Test(arguments: [
        "roughenough/rfc-request.071039e5", "roughenough/rfc-request.SRV.417aa962", "roughenough/rfc-response.071039e5",
        "roughenough/rfc-response.path8.index2.4c16c619", "roughenough/golden-response.phase8",
        "ietf-draft-19-appendix-b/pair1.request.bin", "ietf-draft-19-appendix-b/pair1.response.bin",
    ])
    func messagesReencodeByteForByte(name: String) throws {
        let packet = try RoughtimeVectors.bytes(name)
        let message = try RoughtimeMessage(decoding: try RoughtimePacket.unframe(packet[...]))
        let fields = message.tags.map { ($0, Array(message[$0]!)) }
        #expect(RoughtimePacket.frame(RoughtimeMessage.encode(fields)) == packet)
    }

    @Test func roughenoughServerTagParses() throws {
        let request = try RoughtimeRequest(parsing: try RoughtimeVectors.bytes("roughenough/rfc-request.SRV.417aa962"))
        #expect(request.serverIdentifier?.count == 32)
        #expect(request.versions == [.draft14])
    }

    /// Google's original, draft 8 and draft 11 from cloudflare/roughtime: 333 pairs. The files hold
    /// the private seeds; the public keys are derived from them.
    @Test(arguments: ["google", "ietf_draft08", "ietf_draft11"], ["001", "010", "100"])
    func cloudflarePairsVerify(kind: String, count: String) throws {
        struct File: Decodable {
            var root_key: String
            var request: [String]
            var replies: [String]
        }
        let file = try JSONDecoder().decode(File.self, from: Data(try RoughtimeVectors.bytes("cloudflare/roughtime_\(kind)_\(count).json")))
        let rootKey = Array(try Curve25519.Signing.PrivateKey(rawRepresentation: hexBytes(file.root_key)).publicKey.rawRepresentation)
        let expected: (RoughtimeVersion, UInt64, UInt32) =
            switch kind {
            case "google": (.google, 50_000_000, 5_000_000)
            case "ietf_draft08": (.draft08, 50, 5)
            default: (.draft11, 50, 5)
            }
        #expect(file.request.count == Int(count)!)
        #expect(file.replies.count == file.request.count)
        for (request, reply) in zip(file.request, file.replies) {
            let parsed = try RoughtimeRequest(parsing: hexBytes(request))
            let response = try RoughtimeResponse.verify(hexBytes(reply), request: parsed, publicKey: rootKey)
            #expect(response.version == expected.0)
            #expect(response.midpointValue == expected.1)
            #expect(response.radiusValue == expected.2)
            #expect(response.midpoint == UnixTime(seconds: 50))
            #expect(response.radius == .seconds(5))
            if kind == "ietf_draft11" { #expect(parsed.serverIdentifier == RoughtimeMerkle.serverIdentifier(publicKey: rootKey)) }
        }
    }

    static let appendixB: [(key: String, midpoint: UInt64)] = [
        ("FnDyLV/68ephhLdFJbdEGCdkVvpXDaVe5PYvRDdlOOY=", 1_773_685_571),
        ("l9cdSuR8dFxtG9aJo9pWzUXaX8pftNG4UDC45Qk3znc=", 1_773_599_171),
        ("lRhHag6fn2wZQ6idy10ChgpRgks3gvdMM2hWNeJNgXg=", 1_773_599_171),
    ]

    @Test(arguments: 1...3) func appendixBPairsVerifyAtVersion1(pair: Int) throws {
        // The file gives the key twice: `base64 …` and `hex …`.
        let lines = try RoughtimeVectors.text("ietf-draft-19-appendix-b/pair\(pair).publickey.txt").split(separator: "\n")
        let key = try #require(Data(base64Encoded: String(lines[0].split(separator: " ").last!)).map(Array.init))
        #expect(key == hexBytes(String(lines[1].split(separator: " ").last!)))
        #expect(key == Array(Data(base64Encoded: Self.appendixB[pair - 1].key)!))
        let request = try RoughtimeRequest(parsing: try RoughtimeVectors.bytes("ietf-draft-19-appendix-b/pair\(pair).request.bin"))
        #expect(request.versions == [.rfc])
        #expect(request.serverIdentifier == RoughtimeMerkle.serverIdentifier(publicKey: key))
        let response = try RoughtimeResponse.verify(
            try RoughtimeVectors.bytes("ietf-draft-19-appendix-b/pair\(pair).response.bin"), request: request, publicKey: key)
        #expect(response.version == .rfc)
        #expect(response.midpointValue == Self.appendixB[pair - 1].midpoint)
        #expect(response.radiusValue == 3)
        #expect(response.serverVersions == [1])
    }

    /// Server 1 answered first with a time a day later than servers 2 and 3 answered after it: the
    /// report proves it, and the chain of nonces proves the order.
    @Test func appendixBReportProvesTheFirstServerWrong() throws {
        let report = try RoughtimeReport(json: Data(try RoughtimeVectors.bytes("ietf-draft-19-appendix-b/appendix-b-malfeasance-report.json")))
        #expect(report.entries.count == 3)
        let verdict = try report.verify()
        #expect(verdict.responses.map(\.version) == [.rfc, .rfc, .rfc])
        #expect(verdict.violations.map { [$0.earlier, $0.later] } == [[0, 1], [0, 2]])
        #expect(verdict.violations[0].gap == .seconds(86_400 - 6))
        // Its nonces are the chain's: H(previous reply ‖ rand).
        #expect(report.entries[1].rand == hexBytes(try RoughtimeVectors.text("ietf-draft-19-appendix-b/pair2.rand.hex")))
        // Reading it back from our own encoding gives the same report.
        #expect(try RoughtimeReport(json: report.json()) == report)
    }

    @Test func aReportWithABrokenChainIsRefused() throws {
        var report = try RoughtimeReport(json: Data(try RoughtimeVectors.bytes("ietf-draft-19-appendix-b/appendix-b-malfeasance-report.json")))
        report.entries[2].rand![0] ^= 1
        expectThrows(RoughtimeError.invalidReport) { try report.verify() }
        report.entries[2].rand = nil
        expectThrows(RoughtimeError.invalidReport) { try report.verify() }
        var swapped = try RoughtimeReport(json: Data(try RoughtimeVectors.bytes("ietf-draft-19-appendix-b/appendix-b-malfeasance-report.json")))
        swapped.entries[0].publicKey = swapped.entries[1].publicKey
        expectThrows(RoughtimeError.serverMismatch) { try swapped.verify() }
        swapped.entries[0].request = report.entries[1].request
        #expect(throws: RoughtimeError.self) { try swapped.verify() }
    }
}
