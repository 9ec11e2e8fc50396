/// A Roughtime message: a map from tags to byte strings, as laid out on the wire.
///
/// The wire form is a tag count N (`UInt32`, little-endian), N − 1 value offsets, the N tags in
/// strictly increasing order, then the values; every offset and length is a multiple of four.
/// Parsing checks all of it and copies nothing: values are slices of the bytes given.
package struct RoughtimeMessage: Sendable, Hashable {
    /// The most tags a message may have. The largest message of the protocol has nine.
    package static let maximumTags = 64

    /// The message's bytes.
    package let bytes: ArraySlice<UInt8>
    /// The tags, in wire order (strictly increasing), and where each value lies in ``bytes``.
    package let tags: [RoughtimeTag]
    private let ranges: [Range<Int>]

    /// Parses a message, checking its header against its length.
    /// - Throws: ``RoughtimeError`` `.truncated` when the bytes end inside the header,
    ///   `.malformedMessage` for an impossible count or offset, `.unsortedTags` for a repeated or
    ///   out-of-order tag.
    package init(decoding bytes: ArraySlice<UInt8>) throws(RoughtimeError) {
        guard bytes.count >= 4 else { throw RoughtimeError(.truncated, "\(bytes.count) bytes") }
        guard bytes.count % 4 == 0 else { throw RoughtimeError(.malformedMessage, "length \(bytes.count) is not a multiple of 4") }
        let base = bytes.startIndex
        let count = Int(Self.readUInt32(bytes, at: base))
        guard count >= 1 else { throw RoughtimeError(.malformedMessage, "no tags") }
        guard count <= Self.maximumTags else { throw RoughtimeError(.malformedMessage, "\(count) tags (at most \(Self.maximumTags))") }
        let headerLength = 8 * count
        guard bytes.count >= headerLength else { throw RoughtimeError(.truncated, "\(count) tags need a \(headerLength)-byte header, have \(bytes.count)") }
        let valuesStart = base + headerLength
        let valuesLength = bytes.count - headerLength
        var offsets = [0]
        offsets.reserveCapacity(count + 1)
        for index in 0..<(count - 1) {
            let offset = Int(Self.readUInt32(bytes, at: base + 4 + 4 * index))
            guard offset % 4 == 0 else { throw RoughtimeError(.malformedMessage, "offset \(offset) is not a multiple of 4") }
            guard offset >= offsets[offsets.count - 1] else { throw RoughtimeError(.malformedMessage, "offsets decrease at tag \(index + 1)") }
            guard offset <= valuesLength else { throw RoughtimeError(.malformedMessage, "offset \(offset) points past the message's \(valuesLength) value bytes") }
            offsets.append(offset)
        }
        offsets.append(valuesLength)
        var tags: [RoughtimeTag] = []
        tags.reserveCapacity(count)
        for index in 0..<count {
            let tag = RoughtimeTag(rawValue: Self.readUInt32(bytes, at: base + 4 * count + 4 * index))
            if let last = tags.last, tag <= last {
                throw RoughtimeError(.unsortedTags, tag == last ? "\(tag) twice" : "\(tag) after \(last)")
            }
            tags.append(tag)
        }
        self.bytes = bytes
        self.tags = tags
        ranges = (0..<count).map { (valuesStart + offsets[$0])..<(valuesStart + offsets[$0 + 1]) }
    }

    /// Parses a message held in an array.
    package init(decoding bytes: [UInt8]) throws(RoughtimeError) {
        try self.init(decoding: bytes[...])
    }

    /// The value of `tag`, or `nil` when the message does not carry it.
    package subscript(tag: RoughtimeTag) -> ArraySlice<UInt8>? {
        guard let index = tags.firstIndex(of: tag) else { return nil }
        return bytes[ranges[index]]
    }

    /// The value of `tag`, which must be there.
    /// - Throws: ``RoughtimeError/missingTag``.
    package func value(_ tag: RoughtimeTag) throws(RoughtimeError) -> ArraySlice<UInt8> {
        guard let value = self[tag] else { throw RoughtimeError(.missingTag, "\(tag)") }
        return value
    }

    /// The value of `tag`, which must be there and `length` bytes long.
    /// - Throws: ``RoughtimeError/missingTag`` or ``RoughtimeError/badTagLength``.
    package func value(_ tag: RoughtimeTag, length: Int) throws(RoughtimeError) -> ArraySlice<UInt8> {
        let value = try value(tag)
        guard value.count == length else { throw RoughtimeError(.badTagLength, "\(tag) has \(value.count) bytes, not \(length)") }
        return value
    }

    /// The value of `tag` parsed as a nested message (SREP, CERT, DELE).
    package func message(_ tag: RoughtimeTag) throws(RoughtimeError) -> RoughtimeMessage {
        do { return try RoughtimeMessage(decoding: try value(tag)) } catch { throw error.prefixed("in \(tag)") }
    }

    /// The `UInt32` value of `tag`.
    package func uint32(_ tag: RoughtimeTag) throws(RoughtimeError) -> UInt32 {
        let value = try value(tag, length: 4)
        return Self.readUInt32(value, at: value.startIndex)
    }

    /// The `UInt64` value of `tag`.
    package func uint64(_ tag: RoughtimeTag) throws(RoughtimeError) -> UInt64 {
        let value = try value(tag, length: 8)
        return UInt64(Self.readUInt32(value, at: value.startIndex)) | UInt64(Self.readUInt32(value, at: value.startIndex + 4)) << 32
    }

    /// Encodes fields as a message: sorted by tag, offsets computed.
    ///
    /// Each value's length must be a multiple of four and each tag must appear once: the protocol's
    /// own fields always are (a caller's mistake, not the network's, and so a precondition).
    /// - Complexity: O(n log n) in the number of fields, plus the copy of the values.
    package static func encode(_ fields: [(RoughtimeTag, [UInt8])]) -> [UInt8] {
        let sorted = fields.sorted { $0.0 < $1.0 }
        var output: [UInt8] = []
        output.reserveCapacity(8 * sorted.count + sorted.reduce(0) { $0 + $1.1.count })
        appendUInt32(UInt32(sorted.count), to: &output)
        var offset = 0
        for (index, field) in sorted.enumerated() {
            precondition(field.1.count % 4 == 0, "a Roughtime value's length is a multiple of 4")
            precondition(index == 0 || sorted[index - 1].0 != field.0, "a Roughtime tag appears once")
            if index > 0 { appendUInt32(UInt32(offset), to: &output) }
            offset += field.1.count
        }
        for field in sorted { appendUInt32(field.0.rawValue, to: &output) }
        for field in sorted { output.append(contentsOf: field.1) }
        return output
    }

    static func readUInt32(_ bytes: ArraySlice<UInt8>, at index: Int) -> UInt32 {
        UInt32(bytes[index]) | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2]) << 16 | UInt32(bytes[index + 3]) << 24
    }

    /// Appends `value` little-endian.
    package static func appendUInt32(_ value: UInt32, to output: inout [UInt8]) {
        for shift in stride(from: 0, to: 32, by: 8) { output.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    /// Appends `value` little-endian.
    package static func appendUInt64(_ value: UInt64, to output: inout [UInt8]) {
        for shift in stride(from: 0, to: 64, by: 8) { output.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    package static func uint32Bytes(_ value: UInt32) -> [UInt8] {
        var bytes: [UInt8] = []
        appendUInt32(value, to: &bytes)
        return bytes
    }

    package static func uint64Bytes(_ value: UInt64) -> [UInt8] {
        var bytes: [UInt8] = []
        appendUInt64(value, to: &bytes)
        return bytes
    }
}

/// The `ROUGHTIM` framing of every version but Google's original: the eight ASCII bytes, the
/// message's length (`UInt32`, little-endian), then the message.
package enum RoughtimePacket {
    /// `ROUGHTIM`.
    package static let magic: [UInt8] = Array("ROUGHTIM".utf8)
    /// The header's length: the magic and the length field.
    package static let headerLength = 12

    /// The message with its header.
    package static func frame(_ message: [UInt8]) -> [UInt8] {
        var packet = magic
        packet.reserveCapacity(headerLength + message.count)
        RoughtimeMessage.appendUInt32(UInt32(message.count), to: &packet)
        packet.append(contentsOf: message)
        return packet
    }

    /// Whether the bytes begin with `ROUGHTIM` (framed) rather than a bare message.
    package static func isFramed(_ bytes: ArraySlice<UInt8>) -> Bool {
        bytes.count >= magic.count && bytes.prefix(magic.count).elementsEqual(magic)
    }

    /// The message inside a framed packet.
    /// - Throws: ``RoughtimeError/badFraming`` without the magic or when the length field is not the
    ///   length of what follows it; ``RoughtimeError/truncated`` for fewer than 12 bytes.
    package static func unframe(_ bytes: ArraySlice<UInt8>) throws(RoughtimeError) -> ArraySlice<UInt8> {
        guard bytes.count >= headerLength else { throw RoughtimeError(.truncated, "\(bytes.count) bytes, a header needs 12") }
        guard isFramed(bytes) else { throw RoughtimeError(.badFraming, "no ROUGHTIM header") }
        let length = Int(RoughtimeMessage.readUInt32(bytes, at: bytes.startIndex + 8))
        guard length == bytes.count - headerLength else {
            throw RoughtimeError(.badFraming, "length field \(length), but \(bytes.count - headerLength) bytes follow")
        }
        return bytes.dropFirst(headerLength)
    }
}
