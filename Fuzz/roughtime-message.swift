import Crypto
import TimeSync
import TimeSyncWire

/// Roughtime's message layer alone, as fast as it runs: what every datagram meets before any
/// signature is checked.
///
/// Input: the bytes of one datagram.
/// - The framing and the message parser never trap; a message that parses re-encodes to the same
///   bytes, and its nested messages (SREP, CERT, DELE) parse or throw.
/// - As a request: it parses or throws a typed error; a parsed one's leaf and nonce have the
///   version's lengths.
/// - As a reply to a fixed request: verification throws a typed error (nothing here holds the key).
private let key = try! Curve25519.Signing.PrivateKey(rawRepresentation: [UInt8](repeating: 6, count: 32))
private let publicKey = Array(key.publicKey.rawRepresentation)
private let fixedRequest = RoughtimeRequest(versions: RoughtimeVersion.defaultOffer, nonce: [UInt8](repeating: 2, count: 32))

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRoughtimeMessage(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let bytes = input.rest()
    checkRoughtimeMessageLayer(bytes)
    if let request = try? RoughtimeRequest(parsing: bytes), let version = request.versions.first {
        check(request.nonce.count == version.nonceLength, "a parsed request's nonce has the wrong length")
        check(request.packet == bytes, "a parsed request does not keep its bytes")
        _ = request.leaf(for: version)
    }
    do {
        _ = try RoughtimeResponse.verify(bytes, request: fixedRequest, publicKey: publicKey)
        check(false, "a fuzzed datagram verified under a key only this harness holds")
    } catch {}
    return 0
}
