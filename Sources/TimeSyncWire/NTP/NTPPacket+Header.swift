extension NTPPacket {
    /// The header of a datagram in raw memory (a socket buffer), after the structural checks of
    /// ``init(decoding:)``, without copying anything: a server's hot path.
    ///
    /// - Returns: The header (no extension fields, no MAC) and the number of NTPv4 extension fields
    ///   that follow it.
    /// - Throws: ``NTPPacketError`` as ``init(decoding:)`` would for the same bytes.
    package static func decodeHeader(_ bytes: UnsafeRawBufferPointer) throws(NTPPacketError) -> (header: NTPPacket, extensionFields: Int) {
        guard bytes.count >= headerSize else { throw NTPPacketError(.truncated) }
        func word32(_ offset: Int) -> UInt32 { UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) }
        func word64(_ offset: Int) -> UInt64 { UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) }
        let first = bytes[0]
        let header = NTPPacket(
            leap: NTPLeapIndicator(rawValue: first >> 6)!, version: (first >> 3) & 0x7, mode: NTPMode(rawValue: first & 0x7)!,
            stratum: bytes[1], poll: Int8(bitPattern: bytes[2]), precision: Int8(bitPattern: bytes[3]),
            rootDelay: NTPShortFormat(rawValue: word32(4)), rootDispersion: NTPShortFormat(rawValue: word32(8)),
            referenceID: NTPReferenceID(rawValue: word32(12)), referenceTimestamp: NTPTimestamp(rawValue: word64(16)),
            originTimestamp: NTPTimestamp(rawValue: word64(24)), receiveTimestamp: NTPTimestamp(rawValue: word64(32)),
            transmitTimestamp: NTPTimestamp(rawValue: word64(40)))
        var fields = 0
        if header.version == 4 {
            var offset = headerSize
            while bytes.count - offset > maximumMACSize {
                let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
                guard length >= minimumExtensionFieldSize, length % 4 == 0, length <= bytes.count - offset else {
                    throw NTPPacketError(.malformedExtensionField)
                }
                offset += length
                fields += 1
            }
            switch bytes.count - offset {
            case 0, 4, 20, 24: break
            default: throw NTPPacketError(.malformedExtensionField)
            }
        }
        return (header, fields)
    }
}
