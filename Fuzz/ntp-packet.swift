import TimeSync
import TimeSyncWire
import TimeSyncTesting

/// NTP datagrams: decoding, re-encoding, reply validation, and an accepted reply as a sample.
///
/// Input: one byte of flags, eight bytes that place the reply's arrival (t4), then the datagram.
/// - Every datagram that decodes re-encodes byte for byte, through both decoders.
/// - The datagram is offered to a request made at a fixed monotonic time, at a wall time the flags
///   choose (today, around the 2036 era rollover, before 1970, or far away); flag bit 0 writes the
///   request's transmit timestamp into the origin field, so the fuzzer gets past the origin check.
/// - An accepted reply becomes a sample, which an estimator must turn into bounds no narrower than
///   the sample's own.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzNTPPacket(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let flags = input.byte()
    let arrival = input.int64()
    var datagram = input.rest()

    checkRoundTrip(datagram)

    let sentAt = MonotonicInstant(nanoseconds: 1_000_000_000_000)
    let wallTimes: [UnixTime] = [
        UnixTime(seconds: 1_767_225_600),  // 2026-01-01
        UnixTime(seconds: 2_085_978_496),  // 2036-02-07T06:28:16Z, NTP era 1 begins
        UnixTime(seconds: 2_085_978_495, nanoseconds: 999_999_999),
        UnixTime(seconds: -1),
        UnixTime(seconds: -2_208_988_800),  // 1900-01-01, NTP era 0 begins
        UnixTime(nanoseconds: .max),
        UnixTime(nanoseconds: .min),
        UnixTime(nanoseconds: arrival),
    ]
    let wallTime = wallTimes[Int(flags >> 1) % wallTimes.count]
    var generator = SeededGenerator(seed: UInt64(flags))
    var request = NTPClientRequest(wallTime: wallTime, monotonicTime: sentAt, poll: Int8(bitPattern: flags), using: &generator)
    check(!request.transmitTimestamp.isZero, "a request never sends a zero transmit timestamp")
    check(request.packet.encoded().count == NTPPacket.headerSize, "a request is a bare header")
    if flags & 1 == 1, datagram.count >= 32 {
        let origin = request.transmitTimestamp.rawValue
        for index in 0..<8 { datagram[24 + index] = UInt8(truncatingIfNeeded: origin >> (56 - 8 * UInt64(index))) }
    }
    // t4: mostly a realistic round trip after t1 (up to about 4 s), sometimes any instant at all.
    let receivedAt = flags & 0x80 == 0
        ? MonotonicInstant(nanoseconds: sentAt.nanoseconds + Int64(UInt32(truncatingIfNeeded: arrival)))
        : MonotonicInstant(nanoseconds: arrival)

    let reply: NTPReply
    do {
        reply = try request.accept(datagram, receivedAt: receivedAt)
    } catch {
        return 0
    }
    check(request.isAnswered, "an accepted reply answers the request")
    do {
        _ = try request.accept(datagram, receivedAt: receivedAt)
        check(false, "a second reply was accepted")
    } catch {
        check(error.code == .duplicate, "a second reply is a duplicate, not \(error)")
    }
    check(reply.serverReceive <= reply.serverTransmit, "accepted reply with t3 < t2")
    check(reply.rootDistance <= NTPReplyLimits().maximumRootDistance, "accepted reply over the root distance limit")

    let sample: OffsetSample
    do {
        sample = try reply.sample(source: "ntp.example")
    } catch {
        return 0
    }
    checkOneSampleCalibrates(sample)
    return 0
}

/// A datagram that decodes re-encodes byte for byte, and the raw-memory decoder agrees.
private func checkRoundTrip(_ datagram: [UInt8]) {
    let decoded: NTPPacket
    do {
        decoded = try NTPPacket(decoding: datagram)
    } catch {
        let raw = datagram.withUnsafeBytes { bytes in Result { () throws(NTPPacketError) in try NTPPacket(decoding: bytes) } }
        if case .success = raw { check(false, "the raw-memory decoder accepts what the generic one rejects") }
        return
    }
    let encoded = decoded.encoded()
    check(encoded == datagram, "re-encoding changed the datagram (\(datagram.count) → \(encoded.count) bytes)")
    let raw = datagram.withUnsafeBytes { bytes in Result { () throws(NTPPacketError) in try NTPPacket(decoding: bytes) } }
    check((try? raw.get()) == decoded, "the raw-memory decoder disagrees")
    var header = [UInt8](repeating: 0, count: NTPPacket.headerSize)
    header.withUnsafeMutableBytes { _ = decoded.writeHeader(to: $0) }
    check(header[...] == datagram[..<NTPPacket.headerSize], "the header does not round-trip")
}
