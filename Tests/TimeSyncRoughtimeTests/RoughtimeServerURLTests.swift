import Crypto
import Foundation
import Testing
import TimeSync
import TimeSyncWire
import TimeSyncFixtures
import TimeSyncRoughtime

/// `roughtime://HOST:PORT?key=…[&versions=…]` and the key formats: what is accepted, and the typed
/// error, quoting the text, for what is not.
@Suite struct RoughtimeServerURLTests {
    static let base64Key = "AW5uAoTSTDfG5NfY1bTh08GUnOqlRb+HVhbJ3ODJvsE="
    static let keyBytes = Array(Data(base64Encoded: base64Key)!)

    @Test func aURLWithAKeyNamesTheServer() throws {
        let server = try RoughtimeServerURL("roughtime://roughtime.example:2002?key=\(Self.base64Key)")
        #expect(server.host == "roughtime.example" && server.port == 2002)
        #expect(server.publicKey == Self.keyBytes)
        #expect(server.versions == RoughtimeVersion.defaultOffer)
        #expect(server.description == "roughtime://roughtime.example:2002")
        let client = RoughtimeClient(server)
        #expect(client.host == server.host && client.port == 2002 && client.publicKey == Self.keyBytes)
        #expect(client.name == server.description)
    }

    @Test func anIPv6LiteralAHexKeyAndVersions() throws {
        let hex = Self.keyBytes.map { String(format: "%02X", $0) }.joined()
        let server = try RoughtimeServerURL("ROUGHTIME://[::1]:2002?versions=1,0x8000000c&key=\(hex)")
        #expect(server.host == "::1" && server.port == 2002)
        #expect(server.publicKey == Self.keyBytes)
        #expect(server.versions == [RoughtimeVersion(name: "1")!, RoughtimeVersion(name: "0x8000000c")!])
        #expect(server.description == "roughtime://[::1]:2002")
    }

    @Test func aPercentEncodedKeyIsDecodedAndAPlusStaysAPlus() throws {
        let encoded = Self.base64Key.replacingOccurrences(of: "+", with: "%2B").replacingOccurrences(of: "=", with: "%3D")
        #expect(try RoughtimeServerURL("roughtime://127.0.0.1:2002?key=\(encoded)").publicKey == Self.keyBytes)
        #expect(try RoughtimeServerURL("roughtime://127.0.0.1:2002?key=\(Self.base64Key)").publicKey == Self.keyBytes)
    }

    @Test(arguments: [
        ("ntp://127.0.0.1:2002?key=\(base64Key)", RoughtimeError.invalidURL, "'ntp://127.0.0.1:2002?key=\(base64Key)' is not a roughtime://HOST:PORT?key=BASE64 URL"),
        ("roughtime://127.0.0.1?key=\(base64Key)", .invalidURL, "'roughtime://127.0.0.1?key=\(base64Key)' is not a roughtime://HOST:PORT?key=BASE64 URL"),
        ("roughtime://:2002?key=\(base64Key)", .invalidURL, "'roughtime://:2002?key=\(base64Key)' is not a roughtime://HOST:PORT?key=BASE64 URL"),
        ("roughtime://127.0.0.1:2002", .missingKey, "'roughtime://127.0.0.1:2002' has no key="),
        ("roughtime://127.0.0.1:2002?key=", .missingKey, "'roughtime://127.0.0.1:2002?key=' has no key="),
        ("roughtime://127.0.0.1:2002?key=abcd", .badKey, "'abcd' is not 32 bytes of base64 or hex"),
        ("roughtime://127.0.0.1:2002?key=\(base64Key)&versions=1,7", .unknownVersion, "unknown Roughtime version '7'"),
    ])
    func refusedURLsSayWhy(text: String, expected: RoughtimeError, detail: String) {
        #expect {
            try RoughtimeServerURL(text)
        } throws: { error in
            guard let error = error as? RoughtimeError else { return false }
            return error.code == expected.code && error.detail == detail
        }
    }

    @Test func publicKeysAreBase64OrHex() throws {
        #expect(try RoughtimeKeyText.publicKey(" \(Self.base64Key)\n") == Self.keyBytes)
        #expect(try RoughtimeKeyText.publicKey(Self.keyBytes.map { String(format: "%02x", $0) }.joined()) == Self.keyBytes)
        expectThrows(RoughtimeError.badKey) { try RoughtimeKeyText.publicKey(String(Self.base64Key.dropLast(4))) }
    }

    @Test func aPrivateKeyFileRoundTrips() throws {
        let key = Curve25519.Signing.PrivateKey()
        let text = RoughtimeKeyText.fileContents(key)
        #expect(text.hasSuffix("\n") && text.split(separator: "\n").count == 1)
        let read = try RoughtimeKeyText.privateKey(text, file: "key")
        #expect(read.rawRepresentation == key.rawRepresentation)
        #expect(RoughtimeKeyText.base64(read.publicKey) == key.publicKey.rawRepresentation.base64EncodedString())

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("roughtime-key-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        #expect(FileManager.default.createFile(atPath: file, contents: Data(text.utf8)))
        #expect(try RoughtimeKeyText.privateKey(file: file).rawRepresentation == key.rawRepresentation)
    }

    @Test func aFileWithoutAKeyIsRefusedByName() {
        #expect {
            try RoughtimeKeyText.privateKey(file: "/nonexistent/roughtime.key")
        } throws: { ($0 as? RoughtimeError)?.detail == "cannot read /nonexistent/roughtime.key" }
        #expect {
            try RoughtimeKeyText.privateKey("not a key", file: "k.key")
        } throws: { ($0 as? RoughtimeError).map { $0.code == .badKey && $0.detail == "k.key does not hold a 32-byte key in base64" } ?? false }
    }
}
