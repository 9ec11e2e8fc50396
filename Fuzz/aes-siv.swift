import TimeSync

/// AES-SIV-CMAC-256 on BoringSSL's block function over caller memory (the NTS server's cipher)
/// against the reference written from RFC 5297 on swift-crypto's CMAC and CTR, byte for byte.
///
/// Input: 32 bytes of key, a byte giving the number of header components (0–3), a byte giving each
/// one's length, then the components and the plaintext.
/// - Both seal to the same bytes; both open what they sealed to the plaintext.
/// - One flipped byte (chosen by the input) makes both refuse.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAESSIV(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let key = (0..<32).map { _ in input.byte() }
    let count = Int(input.byte() % 4)
    let lengths = (0..<count).map { _ in Int(input.byte()) }
    let flip = Int(input.byte())
    var rest = input.rest()
    var components: [[UInt8]] = []
    for length in lengths {
        let taken = min(length, rest.count)
        components.append(Array(rest.prefix(taken)))
        rest.removeFirst(taken)
    }
    let plaintext = rest
    guard let cipher = try? AESSIVCMAC256(key: key) else {
        check(false, "a 32-byte key refused")
        return 0
    }
    let reference = ReferenceAESSIV(key: key)
    let sealed = cipher.seal(plaintext, components: components)
    check(sealed == reference.seal(plaintext, components: components), "the fast path and the reference disagree")
    check(cipher.open(sealed, components: components) == plaintext, "what was sealed does not open")
    var altered = sealed
    altered[flip % altered.count] ^= 0x01
    check(cipher.open(altered, components: components) == nil, "an altered message opens")
    check(reference.open(altered, components: components) == nil, "an altered message opens the reference")
    return 0
}
