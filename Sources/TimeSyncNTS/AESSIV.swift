#if NTS
internal import CCryptoBoringSSL
import TimeSync
import TimeSyncWire

/// AEAD_AES_SIV_CMAC_256 (RFC 5297, RFC 5116 §5.x): the AEAD every NTS implementation supports.
///
/// S2V (CMAC with the first half of the key) over the associated data, the nonce and the plaintext
/// gives the synthetic IV, which is also the tag; the plaintext is encrypted in CTR mode (the second
/// half of the key) from that IV with bits 31 and 63 cleared. Misuse-resistant: a repeated nonce
/// reveals only whether two messages were equal.
///
/// The AES block function is BoringSSL's (hardware AES where the processor has it), keyed once: a
/// cipher computes its two key schedules and CMAC subkeys when it is made, and sealing or opening
/// allocates nothing but the array it returns.
public struct AESSIVCMAC256: NTSCipher {
    /// The key length: 32 bytes, 16 for CMAC and 16 for CTR.
    public static let keyLength = 32
    private let schedule: AESSIVSchedule.Box

    /// A cipher with `key`.
    /// - Throws: ``NTSKeyError`` when the key is not 32 bytes.
    public init(key: some Collection<UInt8>) throws(NTSKeyError) {
        let bytes = Array(key)
        guard bytes.count == Self.keyLength else { throw NTSKeyError(.wrongLength, "an AES-SIV-CMAC-256 key has 32 bytes, not \(bytes.count)") }
        schedule = bytes.withUnsafeBytes { AESSIVSchedule.Box(key: $0) }
    }

    public func seal(_ plaintext: [UInt8], nonce: [UInt8], associatedData: [UInt8]) -> [UInt8] {
        associatedData.withUnsafeBytes { ad in
            nonce.withUnsafeBytes { nonce in
                seal(plaintext) { key, d in
                    AESSIV.absorb(key, ad, into: &d)
                    AESSIV.absorb(key, nonce, into: &d)
                }
            }
        }
    }

    public func open(_ ciphertext: [UInt8], nonce: [UInt8], associatedData: [UInt8]) -> [UInt8]? {
        associatedData.withUnsafeBytes { ad in
            nonce.withUnsafeBytes { nonce in
                open(ciphertext) { key, d in
                    AESSIV.absorb(key, ad, into: &d)
                    AESSIV.absorb(key, nonce, into: &d)
                }
            }
        }
    }

    /// SIV over any header components (RFC 5297 §2.6): NTS passes the associated data and the nonce.
    func seal(_ plaintext: [UInt8], components: [[UInt8]]) -> [UInt8] {
        seal(plaintext) { key, d in
            for component in components { component.withUnsafeBytes { AESSIV.absorb(key, $0, into: &d) } }
        }
    }

    /// The inverse of ``seal(_:components:)``; `nil` when the tag does not match.
    func open(_ ciphertext: [UInt8], components: [[UInt8]]) -> [UInt8]? {
        open(ciphertext) { key, d in
            for component in components { component.withUnsafeBytes { AESSIV.absorb(key, $0, into: &d) } }
        }
    }

    private func seal(_ plaintext: [UInt8], headers: (UnsafePointer<AESSIVSchedule>, inout AESSIV.Block) -> Void) -> [UInt8] {
        var sealed = [UInt8](repeating: 0, count: 16 + plaintext.count)
        sealed.withUnsafeMutableBytes { out in
            plaintext.withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: out[16...]).copyMemory(from: $0) }
            AESSIV.sealInPlace(schedule.pointer, out, headers: headers)
        }
        return sealed
    }

    private func open(_ ciphertext: [UInt8], headers: (UnsafePointer<AESSIVSchedule>, inout AESSIV.Block) -> Void) -> [UInt8]? {
        guard ciphertext.count >= 16 else { return nil }
        var plaintext = [UInt8](repeating: 0, count: ciphertext.count - 16)
        let authentic = ciphertext.withUnsafeBytes { sealed in
            plaintext.withUnsafeMutableBytes { AESSIV.open(schedule.pointer, sealed, into: $0, headers: headers) }
        }
        return authentic ? plaintext : nil
    }

    /// The key schedule, for the server's allocation-free path.
    var keySchedule: UnsafePointer<AESSIVSchedule> { UnsafePointer(schedule.pointer) }
}

/// One AES-SIV-CMAC-256 key, ready to use: the AES-128 key schedules of its CMAC half and its CTR
/// half, the CMAC subkeys K1 and K2, and the CMAC of the zero block (S2V's first step).
///
/// A plain value: the server keeps the keys a cookie holds on its stack for the one request.
struct AESSIVSchedule {
    var mac = AES_KEY()
    var ctr = AES_KEY()
    var k1 = AESSIV.Block()
    var k2 = AESSIV.Block()
    var zeroMAC = AESSIV.Block()

    /// The schedule of a 32-byte key.
    init(key: UnsafeRawBufferPointer) {
        precondition(key.count == AESSIVCMAC256.keyLength, "an AES-SIV-CMAC-256 key has 32 bytes")
        // A 128-bit key is always accepted.
        _ = CCryptoBoringSSL_AES_set_encrypt_key(key.baseAddress, 128, &mac)
        _ = CCryptoBoringSSL_AES_set_encrypt_key(key.baseAddress! + 16, 128, &ctr)
        // CMAC's subkeys (RFC 4493 §2.3): L = AES(K, 0), K1 = dbl(L), K2 = dbl(K1).
        let l = AESSIV.encrypt(AESSIV.Block(), with: &mac)
        k1 = AESSIV.double(l)
        k2 = AESSIV.double(k1)
        // CMAC(0^128): one full block, XORed with K1 as the last block.
        zeroMAC = AESSIV.encrypt(k1, with: &mac)
    }

    /// A schedule on the heap, for a key kept (a master key, a client's association).
    final class Box: @unchecked Sendable {
        // Unchecked: the memory is written once, by the initializer, and only read afterwards.
        let pointer: UnsafeMutablePointer<AESSIVSchedule>

        init(key: UnsafeRawBufferPointer) {
            pointer = .allocate(capacity: 1)
            pointer.initialize(to: AESSIVSchedule(key: key))
        }

        deinit {
            pointer.deinitialize(count: 1)
            pointer.deallocate()
        }
    }
}

/// AES-SIV over caller-provided memory: S2V, CMAC and CTR with no allocation.
enum AESSIV {
    /// One AES block.
    typealias Block = SIMD16<UInt8>

    /// The key schedule of the CMAC half.
    @inline(__always)
    private static func macSchedule(_ key: UnsafePointer<AESSIVSchedule>) -> UnsafePointer<AES_KEY> {
        UnsafeRawPointer(key).advanced(by: MemoryLayout<AESSIVSchedule>.offset(of: \.mac)!).assumingMemoryBound(to: AES_KEY.self)
    }

    /// The key schedule of the CTR half.
    @inline(__always)
    private static func ctrSchedule(_ key: UnsafePointer<AESSIVSchedule>) -> UnsafePointer<AES_KEY> {
        UnsafeRawPointer(key).advanced(by: MemoryLayout<AESSIVSchedule>.offset(of: \.ctr)!).assumingMemoryBound(to: AES_KEY.self)
    }

    /// AES-128 of one block.
    @inline(__always)
    static func encrypt(_ block: Block, with key: UnsafePointer<AES_KEY>) -> Block {
        var input = block
        var output = Block()
        withUnsafeBytes(of: &input) { input in
            withUnsafeMutableBytes(of: &output) { CCryptoBoringSSL_AES_encrypt(input.baseAddress, $0.baseAddress, key) }
        }
        return output
    }

    /// Doubling in GF(2^128) (RFC 5297 §2.3), without a branch on the secret bit.
    @inline(__always)
    static func double(_ block: Block) -> Block {
        let words = unsafeBitCast(block, to: (UInt64, UInt64).self)
        let high = UInt64(bigEndian: words.0)
        let low = UInt64(bigEndian: words.1)
        let carry = 0 &- (high >> 63)
        let doubled = ((high << 1 | low >> 63).bigEndian, ((low << 1) ^ (carry & 0x87)).bigEndian)
        return unsafeBitCast(doubled, to: Block.self)
    }

    /// `bytes[offset..<offset + 16]`.
    @inline(__always)
    private static func load(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> Block {
        bytes.loadUnaligned(fromByteOffset: offset, as: Block.self)
    }

    /// The last `count` (< 16) bytes from `offset`, then 0x80 and zeros (RFC 4493's padding).
    @inline(__always)
    private static func loadPadded(_ bytes: UnsafeRawBufferPointer, at offset: Int, count: Int) -> Block {
        var block = Block()
        for index in 0..<count { block[index] = bytes[offset + index] }
        block[count] = 0x80
        return block
    }

    /// CMAC (RFC 4493) of `bytes`; with `xorEnd`, of `bytes` whose last 16 bytes are XORed with it
    /// first (S2V's `xorend`, `bytes` at least 16 long), without copying them.
    static func cmac(_ key: UnsafePointer<AESSIVSchedule>, _ bytes: UnsafeRawBufferPointer, xorEnd: Block? = nil) -> Block {
        let count = bytes.count
        let mac = macSchedule(key)
        // The blocks before the last: every full block but the final one (an empty message has one,
        // padded, block).
        let leading = count == 0 ? 0 : (count - 1) / 16
        let tailStart = count - 16
        var x = Block()
        for index in 0..<leading {
            var block = load(bytes, at: index * 16)
            if let xorEnd, index * 16 + 16 > tailStart { block ^= shifted(xorEnd, blockAt: index * 16, tailStart: tailStart) }
            x = encrypt(x ^ block, with: mac)
        }
        let lastOffset = leading * 16
        let lastCount = count - lastOffset
        var last: Block
        if lastCount == 16 {
            last = load(bytes, at: lastOffset)
            if let xorEnd { last ^= shifted(xorEnd, blockAt: lastOffset, tailStart: tailStart) }
            last ^= key.pointee.k1
        } else {
            last = loadPadded(bytes, at: lastOffset, count: lastCount)
            if let xorEnd {
                // The padding byte and the zeros are not part of the tail.
                var tail = shifted(xorEnd, blockAt: lastOffset, tailStart: tailStart)
                for index in lastCount..<16 { tail[index] = 0 }
                last ^= tail
            }
            last ^= key.pointee.k2
        }
        return encrypt(x ^ last, with: mac)
    }

    /// The part of `value` (which covers `tailStart..<tailStart + 16`) that falls on the block at
    /// `offset`, as a block: zero where the block is outside the tail.
    private static func shifted(_ value: Block, blockAt offset: Int, tailStart: Int) -> Block {
        var result = Block()
        for index in 0..<16 {
            let position = offset + index - tailStart
            if position >= 0 && position < 16 { result[index] = value[position] }
        }
        return result
    }

    /// One S2V step over a header component (associated data or nonce): D = dbl(D) xor CMAC(component).
    static func absorb(_ key: UnsafePointer<AESSIVSchedule>, _ component: UnsafeRawBufferPointer, into d: inout Block) {
        d = double(d) ^ cmac(key, component)
    }

    /// S2V's last step over the plaintext (RFC 5297 §2.4): the synthetic IV.
    static func finish(_ key: UnsafePointer<AESSIVSchedule>, _ d: Block, plaintext: UnsafeRawBufferPointer) -> Block {
        if plaintext.count >= 16 { return cmac(key, plaintext, xorEnd: d) }
        var padded = loadPadded(plaintext, at: 0, count: plaintext.count)
        padded ^= double(d)
        return withUnsafeBytes(of: &padded) { cmac(key, $0) }
    }

    /// CTR over `count` bytes from `input` to `output` (which may be the same memory), from `iv` with
    /// bits 31 and 63 cleared.
    static func ctr(_ key: UnsafePointer<AESSIVSchedule>, iv: Block, _ input: UnsafeRawPointer, _ output: UnsafeMutableRawPointer, count: Int) {
        guard count > 0 else { return }
        var counter = iv
        counter[8] &= 0x7F
        counter[12] &= 0x7F
        var keystream = Block()
        var used: UInt32 = 0
        let schedule = ctrSchedule(key)
        withUnsafeMutableBytes(of: &counter) { counter in
            withUnsafeMutableBytes(of: &keystream) { keystream in
                CCryptoBoringSSL_AES_ctr128_encrypt(
                    input.assumingMemoryBound(to: UInt8.self), output.assumingMemoryBound(to: UInt8.self), count, schedule,
                    counter.baseAddress!.assumingMemoryBound(to: UInt8.self), keystream.baseAddress!.assumingMemoryBound(to: UInt8.self), &used)
            }
        }
    }

    /// Seals in place: `message` holds 16 bytes for the IV, then the plaintext, which is encrypted
    /// where it lies; `headers` absorbs the header components (associated data, nonce) in order.
    static func sealInPlace(
        _ key: UnsafePointer<AESSIVSchedule>, _ message: UnsafeMutableRawBufferPointer,
        headers: (UnsafePointer<AESSIVSchedule>, inout Block) -> Void
    ) {
        precondition(message.count >= 16, "a sealed message starts with its 16-byte IV")
        var d = key.pointee.zeroMAC
        headers(key, &d)
        let plaintext = UnsafeMutableRawBufferPointer(rebasing: message[16...])
        let iv = finish(key, d, plaintext: UnsafeRawBufferPointer(plaintext))
        message.storeBytes(of: iv, as: Block.self)
        if let base = plaintext.baseAddress { ctr(key, iv: iv, base, base, count: plaintext.count) }
    }

    /// Opens `sealed` (IV, then ciphertext) into `plaintext` (`sealed.count − 16` bytes, which may
    /// overlap the ciphertext exactly); `false`, with `plaintext` zeroed, when the tag does not match.
    static func open(
        _ key: UnsafePointer<AESSIVSchedule>, _ sealed: UnsafeRawBufferPointer, into plaintext: UnsafeMutableRawBufferPointer,
        headers: (UnsafePointer<AESSIVSchedule>, inout Block) -> Void
    ) -> Bool {
        precondition(sealed.count >= 16 && plaintext.count == sealed.count - 16, "the plaintext is the ciphertext without its IV")
        let iv = sealed.loadUnaligned(as: Block.self)
        if let output = plaintext.baseAddress { ctr(key, iv: iv, sealed.baseAddress! + 16, output, count: plaintext.count) }
        var d = key.pointee.zeroMAC
        headers(key, &d)
        let expected = finish(key, d, plaintext: UnsafeRawBufferPointer(plaintext))
        // Compared in constant time: every byte is looked at.
        let difference = expected ^ iv
        var any: UInt8 = 0
        for index in 0..<16 { any |= difference[index] }
        if any != 0 {
            plaintext.initializeMemory(as: UInt8.self, repeating: 0)
            return false
        }
        return true
    }
}

/// A key of the wrong length, or keying material that cannot be used.
public struct NTSKeyError: CodedError {
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
