import TimeSync
import TimeSyncWire

/// What every Roughtime datagram must satisfy at the message layer: framing and parser never trap,
/// a parsed message re-encodes to its bytes, and its nested messages (SREP, CERT, DELE) parse or
/// throw, and its integers read or throw.
func checkRoughtimeMessageLayer(_ bytes: [UInt8]) {
    let body = RoughtimePacket.isFramed(bytes[...]) ? (try? RoughtimePacket.unframe(bytes[...])) : bytes[...]
    guard let body, let message = try? RoughtimeMessage(decoding: body) else { return }
    let fields = message.tags.map { ($0, Array(message[$0]!)) }
    if fields.allSatisfy({ $0.1.count % 4 == 0 }) {
        check(RoughtimeMessage.encode(fields) == Array(body), "a parsed message does not re-encode to its bytes")
    }
    for tag in message.tags where [RoughtimeTag.signedResponse, .certificate, .delegation].contains(tag) {
        if let nested = try? message.message(tag) { _ = nested.tags.map { nested[$0] } }
    }
    _ = try? message.uint32(.version)
    _ = try? message.uint64(.midpoint)
}
