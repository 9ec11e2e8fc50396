#if NTS
import Crypto
import CryptoExtras

/// AES-SIV-CMAC-256 written straight from RFC 5297 on swift-crypto's AES-CMAC and AES-CTR, arrays
/// everywhere: slow, and simple enough to read against the RFC. `AESSIVCMAC256` must give the same
/// bytes for every input (`NTSCryptoTests`, and the `aes-siv` fuzz target).
struct ReferenceAESSIV {
    private let encryptionKey: SymmetricKey
    private let macKey: SymmetricKey

    init(key: [UInt8]) {
        precondition(key.count == 32)
        macKey = SymmetricKey(data: key[0..<16])
        encryptionKey = SymmetricKey(data: key[16..<32])
    }

    func seal(_ plaintext: [UInt8], components: [[UInt8]]) -> [UInt8] {
        let iv = s2v(components + [plaintext])
        return iv + ctr(plaintext, iv: iv)
    }

    func open(_ ciphertext: [UInt8], components: [[UInt8]]) -> [UInt8]? {
        guard ciphertext.count >= 16 else { return nil }
        let iv = Array(ciphertext[0..<16])
        let plaintext = ctr(Array(ciphertext[16...]), iv: iv)
        return s2v(components + [plaintext]) == iv ? plaintext : nil
    }

    /// S2V (RFC 5297 §2.4) over the strings, the last one being the plaintext.
    func s2v(_ strings: [[UInt8]]) -> [UInt8] {
        var d = cmac([UInt8](repeating: 0, count: 16))
        for string in strings.dropLast() { d = xor(double(d), cmac(string)) }
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
        var mac = try! AES.CMAC(key: macKey)
        mac.update(data: bytes)
        return Array(mac.finalize())
    }

    private func ctr(_ bytes: [UInt8], iv: [UInt8]) -> [UInt8] {
        guard !bytes.isEmpty else { return [] }
        var counter = iv
        counter[8] &= 0x7F
        counter[12] &= 0x7F
        return Array(try! AES._CTR.encrypt(bytes, using: encryptionKey, nonce: AES._CTR.Nonce(nonceBytes: counter)))
    }

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
#endif
