// The NTS server's cryptography: sealing and opening a 104-byte cookie, and the whole of a 232-byte
// NTS request (the cookie opened, the Authenticator checked, a new cookie made, the reply sealed), in
// one run with allocations counted.
import Benchmark
import TimeSync
import TimeSyncWire
import TimeSyncNTS

/// A 232-byte NTS request, as a client with one cookie and no placeholder sends it: the header, a
/// 32-byte Unique Identifier, the cookie, and the Authenticator sealed with the cookie's client-to-server key.
func ntsRequest(keys: NTSServerKeys, clientToServer: [UInt8], serverToClient: [UInt8]) throws -> [UInt8] {
    func field(_ type: UInt16, _ value: [UInt8]) -> [UInt8] {
        let length = UInt16(4 + value.count)
        return [UInt8(type >> 8), UInt8(type & 0xFF), UInt8(length >> 8), UInt8(length & 0xFF)] + value
    }
    var bytes = NTPPacket(version: 4, mode: .client, transmitTimestamp: NTPTimestamp(rawValue: 0x0123_4567_89AB_CDEF)).encoded()
    bytes += field(NTSExtensionFieldType.uniqueIdentifier, [UInt8](repeating: 0x5A, count: 32))
    bytes += field(NTSExtensionFieldType.cookie, keys.makeCookie(clientToServer: clientToServer, serverToClient: serverToClient))
    let nonce = [UInt8](repeating: 0x4E, count: 16)
    let tag = try AESSIVCMAC256(key: clientToServer).seal([], nonce: nonce, associatedData: bytes)
    bytes += field(NTSExtensionFieldType.authenticator, [0, 16, 0, UInt8(tag.count)] + nonce + tag)
    precondition(bytes.count == 232)
    return bytes
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal, .instructions],
        warmupIterations: 100,
        scalingFactor: .kilo,
        maxDuration: .seconds(3),
        maxIterations: 50)

    let keys = try! NTSServerKeys()
    let clientToServer = [UInt8](repeating: 0xC2, count: 32)
    let serverToClient = [UInt8](repeating: 0x52, count: 32)
    let cookie = keys.makeCookie(clientToServer: clientToServer, serverToClient: serverToClient)
    let request = try! ntsRequest(keys: keys, clientToServer: clientToServer, serverToClient: serverToClient)
    var reply = [UInt8](repeating: 0, count: request.count)
    let header = NTPPacket(version: 4, mode: .server, stratum: 2)

    Benchmark("NTS cookie: seal (104 bytes)") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(keys.makeCookie(clientToServer: clientToServer, serverToClient: serverToClient)) }
    }
    Benchmark("NTS cookie: open (104 bytes)") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(keys.openCookie(cookie)) }
    }
    Benchmark("NTS request: check and seal the reply (232 bytes)") { benchmark in
        for _ in benchmark.scaledIterations {
            let outcome = request.withUnsafeBytes { request in
                reply.withUnsafeMutableBytes { keys.authenticate(request, into: $0) { _ in header } }
            }
            precondition(outcome == .authenticated(length: 232))
            blackHole(outcome)
        }
    }
}
