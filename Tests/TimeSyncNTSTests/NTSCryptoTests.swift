#if NTS
import Foundation
import NIOCore
import Testing
import TimeSync
import TimeSyncWire
import TimeSyncFixtures
import TimeSyncTesting
@testable import TimeSyncNTS

/// AES-SIV-CMAC-256 against RFC 5297's vectors, and the TLS exporter against vectors OpenSSL derived
/// (`scripts/fixtures/nts-exporter-vectors`, committed beside this file).
@Suite struct NTSCryptoTests {
    /// RFC 5297 A.1: deterministic authenticated encryption (one header, no nonce).
    @Test func aesSIVMatchesRFC5297DeterministicVector() throws {
        let cipher = try AESSIVCMAC256(key: hexBytes("fffefdfcfbfaf9f8f7f6f5f4f3f2f1f0f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"))
        let header = hexBytes("101112131415161718191a1b1c1d1e1f2021222324252627")
        let plaintext = hexBytes("112233445566778899aabbccddee")
        let sealed = cipher.seal(plaintext, components: [header])
        #expect(sealed == hexBytes("85632d07c6e8f37f950acd320a2ecc9340c02b9690c4dc04daef7f6afe5c"))
        #expect(cipher.open(sealed, components: [header]) == plaintext)
    }

    /// RFC 5297 A.2: nonce-based authenticated encryption (two headers and a nonce).
    @Test func aesSIVMatchesRFC5297NonceVector() throws {
        let cipher = try AESSIVCMAC256(key: hexBytes("7f7e7d7c7b7a79787776757473727170404142434445464748494a4b4c4d4e4f"))
        let components = [
            hexBytes("00112233445566778899aabbccddeeffdeaddadadeaddadaffeeddccbbaa99887766554433221100"),
            hexBytes("102030405060708090a0"),
            hexBytes("09f911029d74e35bd84156c5635688c0"),
        ]
        let plaintext = hexBytes("7468697320697320736f6d6520706c61696e7465787420746f20656e6372797074207573696e67205349562d414553")
        let sealed = cipher.seal(plaintext, components: components)
        #expect(
            sealed
                == hexBytes("7bdb6e3b432667eb06f4d14bff2fbd0fcb900f2fddbe404326601965c889bf17dba77ceb094fa663b7a3f748ba8af829ea64ad544a272e9c485b62a3fd5c0d"))
        #expect(cipher.open(sealed, components: components) == plaintext)
    }

    /// Any altered byte — of the tag, the ciphertext, the nonce or the associated data — fails to open.
    @Test func aesSIVRefusesAnyAlteration() throws {
        let cipher = try AESSIVCMAC256(key: [UInt8](repeating: 7, count: 32))
        let nonce = [UInt8](repeating: 1, count: 16)
        let associatedData = [UInt8](repeating: 2, count: 60)
        let sealed = cipher.seal([UInt8](repeating: 3, count: 40), nonce: nonce, associatedData: associatedData)
        #expect(cipher.open(sealed, nonce: nonce, associatedData: associatedData) == [UInt8](repeating: 3, count: 40))
        for index in sealed.indices {
            var altered = sealed
            altered[index] ^= 0x01
            #expect(cipher.open(altered, nonce: nonce, associatedData: associatedData) == nil, "byte \(index) of the ciphertext")
        }
        #expect(cipher.open(sealed, nonce: [UInt8](repeating: 9, count: 16), associatedData: associatedData) == nil)
        var associated = associatedData
        associated[59] ^= 0x80
        #expect(cipher.open(sealed, nonce: nonce, associatedData: associated) == nil)
        #expect(try AESSIVCMAC256(key: [UInt8](repeating: 8, count: 32)).open(sealed, nonce: nonce, associatedData: associatedData) == nil)
        #expect(cipher.open(Array(sealed.prefix(15)), nonce: nonce, associatedData: associatedData) == nil)
        #expect(throws: NTSKeyError.self) { try AESSIVCMAC256(key: [UInt8](repeating: 0, count: 16)) }
    }

    /// The cipher gives the same bytes as the reference written from the RFC on swift-crypto, for
    /// random keys, headers and plaintexts of every length around the block size, and both refuse
    /// the same alterations.
    @Test func aesSIVMatchesTheReferenceByteForByte() throws {
        var generator = SeededGenerator(seed: 5297)
        for round in 0..<2_000 {
            let key = generator.bytes(32)
            let cipher = try AESSIVCMAC256(key: key)
            let reference = ReferenceAESSIV(key: key)
            let components = (0..<Int.random(in: 0...3, using: &generator)).map { _ in generator.bytes(Int.random(in: 0...70, using: &generator)) }
            let plaintext = generator.bytes(round < 100 ? round : Int.random(in: 0...300, using: &generator))
            let sealed = cipher.seal(plaintext, components: components)
            #expect(sealed == reference.seal(plaintext, components: components), "round \(round)")
            #expect(cipher.open(sealed, components: components) == plaintext, "round \(round)")
            var altered = sealed
            altered[Int.random(in: 0..<altered.count, using: &generator)] ^= UInt8.random(in: 1...255, using: &generator)
            #expect(cipher.open(altered, components: components) == nil && reference.open(altered, components: components) == nil, "round \(round)")
        }
    }

    struct ExporterVectors: Decodable {
        struct Direction: Decodable {
            var context: String
            var key: String
        }
        struct Vector: Decodable {
            var suite: String
            var hash: String
            var exporterSecret: String
            var label: String
            var clientToServer: Direction
            var serverToClient: Direction
        }
        var generator: String
        var vectors: [Vector]
    }

    /// The keys derived from each suite's exporter secret are the ones OpenSSL's
    /// `export_keying_material` gave for the same session, both directions, SHA-256 and SHA-384 suites.
    @Test func exporterMatchesOpenSSL() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("exporter-vectors.json")
        let file = try JSONDecoder().decode(ExporterVectors.self, from: Data(contentsOf: url))
        #expect(Set(file.vectors.map(\.hash)) == ["SHA256", "SHA384"])
        for vector in file.vectors {
            let secret = hexBytes(vector.exporterSecret)
            #expect(secret.count == (vector.hash == "SHA384" ? 48 : 32))
            #expect(vector.label == TLSExporter.label)
            let keys = TLSExporter.keys(exporterSecret: secret, algorithm: NTSAEADAlgorithm.aesSIVCMAC256, length: 32)
            #expect(hexBytes(vector.clientToServer.context) == [0, 0, 0, 15, 0])
            #expect(keys.clientToServer == hexBytes(vector.clientToServer.key), "\(vector.suite) client-to-server")
            #expect(keys.serverToClient == hexBytes(vector.serverToClient.key), "\(vector.suite) server-to-client")
        }
    }

    /// The key log's exporter line gives the secret; other lines and malformed ones give nothing.
    @Test func keyLogLines() {
        let secret = String(repeating: "ab", count: 32)
        let line = ByteBuffer(string: "EXPORTER_SECRET \(String(repeating: "00", count: 32)) \(secret)\n")
        #expect(TLSExporter.exporterSecret(inKeyLogLine: line) == [UInt8](repeating: 0xAB, count: 32))
        #expect(TLSExporter.exporterSecret(inKeyLogLine: ByteBuffer(string: "CLIENT_TRAFFIC_SECRET_0 00 \(secret)")) == nil)
        #expect(TLSExporter.exporterSecret(inKeyLogLine: ByteBuffer(string: "EXPORTER_SECRET 00 abc")) == nil)
        #expect(TLSExporter.exporterSecret(inKeyLogLine: ByteBuffer(string: "EXPORTER_SECRET 00 zz")) == nil)
    }
}
#endif
