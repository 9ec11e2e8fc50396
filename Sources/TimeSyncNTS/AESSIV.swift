#if NTS
import Crypto
import CryptoExtras
import TimeSync

/// AEAD_AES_SIV_CMAC_256 (RFC 5297, RFC 5116 §5.x): the AEAD every NTS implementation supports.
///
/// Composed from swift-crypto's AES-CMAC and AES-CTR: S2V (CMAC with the first half of the key) over
/// the associated data, the nonce and the plaintext gives the synthetic IV, which is also the tag;
/// the plaintext is encrypted in CTR mode (the second half of the key) from that IV with bits 31 and
/// 63 cleared. Misuse-resistant: a repeated nonce reveals only whether two messages were equal.
public struct AESSIVCMAC256: NTSCipher {
    /// The key length: 32 bytes, 16 for CMAC and 16 for CTR.
    public static let keyLength = 32
    private let encryptionKey: SymmetricKey
    /// CMAC keyed once: each MAC starts from a copy of it, which skips the key schedule.
    private let keyedMAC: AES.CMAC
    /// CMAC of the zero block, S2V's first step: the same for every message under this key.
    private let zeroBlockMAC: [UInt8]

    /// A cipher with `key`.
    /// - Throws: ``NTSKeyError`` when the key is not 32 bytes.
    public init(key: some Collection<UInt8>) throws(NTSKeyError) {
        let bytes = Array(key)
        guard bytes.count == Self.keyLength else { throw NTSKeyError(.wrongLength, "an AES-SIV-CMAC-256 key has 32 bytes, not \(bytes.count)") }
        encryptionKey = SymmetricKey(data: bytes[16..<32])
        // A 16-byte key is always valid for AES: CMAC cannot fail.
        keyedMAC = try! AES.CMAC(key: SymmetricKey(data: bytes[0..<16]))
        var zero = keyedMAC
        zero.update(data: [UInt8](repeating: 0, count: 16))
        zeroBlockMAC = Array(zero.finalize())
    }

    public func seal(_ plaintext: [UInt8], nonce: [UInt8], associatedData: [UInt8]) -> [UInt8] {
        seal(plaintext, components: [associatedData, nonce])
    }

    public func open(_ ciphertext: [UInt8], nonce: [UInt8], associatedData: [UInt8]) -> [UInt8]? {
        open(ciphertext, components: [associatedData, nonce])
    }

    /// SIV over any header components (RFC 5297 §2.6): NTS passes the associated data and the nonce.
    func seal(_ plaintext: [UInt8], components: [[UInt8]]) -> [UInt8] {
        let iv = s2v(components + [plaintext])
        return iv + ctr(plaintext, iv: iv)
    }

    /// The inverse of ``seal(_:components:)``; `nil` when the tag does not match.
    func open(_ ciphertext: [UInt8], components: [[UInt8]]) -> [UInt8]? {
        guard ciphertext.count >= 16 else { return nil }
        let iv = Array(ciphertext[0..<16])
        let plaintext = ctr(Array(ciphertext[16...]), iv: iv)
        let expected = s2v(components + [plaintext])
        // Compared in constant time: every byte is looked at.
        var difference: UInt8 = 0
        for index in 0..<16 { difference |= expected[index] ^ iv[index] }
        return difference == 0 ? plaintext : nil
    }

    /// S2V (RFC 5297 §2.4) over the strings, the last one being the plaintext.
    func s2v(_ strings: [[UInt8]]) -> [UInt8] {
        var d = zeroBlockMAC
        for string in strings.dropLast() {
            d = xor(double(d), cmac(string))
        }
        let last = strings.last ?? []
        if last.count >= 16 {
            var t = last
            for index in 0..<16 { t[last.count - 16 + index] ^= d[index] }
            return cmac(t)
        }
        var padded = last + [0x80]
        padded += [UInt8](repeating: 0, count: 16 - padded.count)
        return cmac(xor(double(d), padded))
    }

    private func cmac(_ bytes: [UInt8]) -> [UInt8] {
        var mac = keyedMAC
        bytes.withUnsafeBytes { mac.update(bufferPointer: $0) }
        return mac.finalize().withUnsafeBytes { Array($0) }
    }

    private func ctr(_ bytes: [UInt8], iv: [UInt8]) -> [UInt8] {
        guard !bytes.isEmpty else { return [] }
        var counter = iv
        counter[8] &= 0x7F
        counter[12] &= 0x7F
        // A 16-byte counter block and a 16-byte key are always valid: CTR cannot fail.
        return Array(try! AES._CTR.encrypt(bytes, using: encryptionKey, nonce: AES._CTR.Nonce(nonceBytes: counter)))
    }

    /// Doubling in GF(2^128) (RFC 5297 §2.3).
    private func double(_ block: [UInt8]) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: 16)
        var carry: UInt8 = 0
        for index in stride(from: 15, through: 0, by: -1) {
            result[index] = block[index] << 1 | carry
            carry = block[index] >> 7
        }
        if block[0] & 0x80 != 0 { result[15] ^= 0x87 }
        return result
    }

    private func xor(_ a: [UInt8], _ b: [UInt8]) -> [UInt8] {
        zip(a, b).map { $0 ^ $1 }
    }
}

/// A key of the wrong length, or keying material that cannot be used.
public struct NTSKeyError: TimeSyncError {
    /// The kinds of unusable key.
    public enum Code: Sendable, Hashable {
        /// The key is not as long as the algorithm's keys (32 bytes for AES-SIV-CMAC-256).
        case wrongLength
    }

    /// Which kind of failure this is.
    public let code: Code
    /// What is wrong.
    public let detail: String

    init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    public var description: String { detail }
}
#endif
