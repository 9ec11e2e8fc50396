import Foundation
import Crypto
import TimeSync
import TimeSyncServerSupport
import TimeSyncWire

/// Roughtime messages as a client and a server read them off UDP.
///
/// Input: the bytes of one datagram.
/// - The message parser never traps; a message that parses re-encodes to the same bytes.
/// - As a reply to a fixed request: it verifies or throws a typed `RoughtimeError` (never a trap).
/// - As a request to our responder: a request that parses is answered (or dropped with a reason),
///   and every reply verifies against that request and is no larger than it.
/// - As a misbehaviour report's JSON: it reads or throws, never traps.
private let key = try! Curve25519.Signing.PrivateKey(rawRepresentation: [UInt8](repeating: 5, count: 32))
private let responder = try! RoughtimeResponder(longTermKey: key, validity: 0...UInt64(1) << 40)
private let fixedRequest = RoughtimeRequest(versions: RoughtimeVersion.defaultOffer, nonce: [UInt8](repeating: 1, count: 32))

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRoughtime(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let bytes = input.rest()
    checkRoughtimeMessageLayer(bytes)
    do {
        _ = try RoughtimeResponse.verify(bytes, request: fixedRequest, publicKey: Array(key.publicKey.rawRepresentation))
        check(false, "a fuzzed datagram verified under a key only this harness holds")
    } catch {}
    if let request = try? RoughtimeRequest(parsing: bytes) {
        if case .success(let reply) = responder.respond(to: [bytes], now: UnixTime(seconds: 1_790_000_000))[0] {
            check(reply.count <= bytes.count, "a reply larger than its request")
            check((try? RoughtimeResponse.verify(reply, request: request, publicKey: responder.publicKey)) != nil, "our reply does not verify")
        }
    }
    _ = try? RoughtimeReport(json: Data(bytes)).verify()
    return 0
}
