/// An NTP packet: the 48-byte header of RFC 5905, followed by any extension fields (RFC 7822) and
/// message authentication code, kept opaque so that a packet re-encodes byte for byte.
///
/// Decoding never traps on bad bytes: a packet shorter than 48 bytes or with a malformed extension
/// area throws ``NTPPacketError``. Decoding checks structure only; whether a reply may be used is
/// decided by `NTPClientRequest.accept(_:receivedAt:limits:)`.
public struct NTPPacket: Sendable, Hashable {
    /// The size of the header and the smallest valid packet, in bytes.
    public static let headerSize = 48

    /// Leap second warning, or the alarm condition (unsynchronized).
    public var leap: NTPLeapIndicator
    /// Protocol version, 0–7 (3 bits on the wire; 4 is NTPv4).
    public var version: UInt8
    /// Association mode.
    public var mode: NTPMode
    /// Distance from the reference clock: 1 primary, 2–15 secondary, 16 unsynchronized,
    /// 0 unspecified or Kiss-o'-Death.
    public var stratum: UInt8
    /// Poll exponent: the maximum interval between messages is 2^poll seconds.
    public var poll: Int8
    /// Precision exponent: the sender's clock resolution is 2^precision seconds.
    public var precision: Int8
    /// Round-trip delay to the reference clock.
    public var rootDelay: NTPShortFormat
    /// Dispersion (error bound) relative to the reference clock.
    public var rootDispersion: NTPShortFormat
    /// The reference clock, upstream server or Kiss-o'-Death code.
    public var referenceID: NTPReferenceID
    /// When the sender's clock was last set or corrected.
    public var referenceTimestamp: NTPTimestamp
    /// In a reply: the transmit timestamp of the request it answers (T1 as the client sent it).
    public var originTimestamp: NTPTimestamp
    /// In a reply: when the server received the request (T2).
    public var receiveTimestamp: NTPTimestamp
    /// When the packet left its sender (T3 in a reply; the request's identifier in a request).
    public var transmitTimestamp: NTPTimestamp
    /// NTPv4 extension fields, in wire order.
    public var extensionFields: [NTPExtensionField]
    /// Whatever follows the extension fields: a key identifier and message digest, a 4-byte
    /// crypto-NAK, or for versions before 4 any trailing bytes. `nil` when there is nothing.
    public var messageAuthenticationCode: [UInt8]?

    /// Creates a packet; every field has the value of an all-zero header by default.
    public init(
        leap: NTPLeapIndicator = .noWarning, version: UInt8 = 4, mode: NTPMode = .client, stratum: UInt8 = 0,
        poll: Int8 = 0, precision: Int8 = 0, rootDelay: NTPShortFormat = .zero,
        rootDispersion: NTPShortFormat = .zero, referenceID: NTPReferenceID = NTPReferenceID(rawValue: 0),
        referenceTimestamp: NTPTimestamp = .zero, originTimestamp: NTPTimestamp = .zero,
        receiveTimestamp: NTPTimestamp = .zero, transmitTimestamp: NTPTimestamp = .zero,
        extensionFields: [NTPExtensionField] = [], messageAuthenticationCode: [UInt8]? = nil
    ) {
        self.leap = leap
        self.version = version
        self.mode = mode
        self.stratum = stratum
        self.poll = poll
        self.precision = precision
        self.rootDelay = rootDelay
        self.rootDispersion = rootDispersion
        self.referenceID = referenceID
        self.referenceTimestamp = referenceTimestamp
        self.originTimestamp = originTimestamp
        self.receiveTimestamp = receiveTimestamp
        self.transmitTimestamp = transmitTimestamp
        self.extensionFields = extensionFields
        self.messageAuthenticationCode = messageAuthenticationCode
    }

    /// The largest message authentication code an NTPv4 packet carries: a 4-byte key identifier and
    /// a 20-byte SHA-1 digest. A shorter trailer cannot be an extension field (RFC 7822 §7.5).
    package static let maximumMACSize = 24
    /// The smallest extension field: 4 bytes of type and length and 12 of value (RFC 7822 §3).
    package static let minimumExtensionFieldSize = 16

    /// Decodes a packet received from the network.
    ///
    /// - Parameter bytes: The UDP payload.
    /// - Throws: ``NTPPacketError`` `.truncated` for fewer than 48 bytes; `.malformedExtensionField`
    ///   for an NTPv4 extension area that does not parse (a length below 16, not a multiple of 4, or
    ///   past the end) or leaves a trailer that is not a MAC (4, 20 or 24 bytes).
    public init(decoding bytes: some Collection<UInt8>) throws(NTPPacketError) {
        var reader = NTPByteReader(bytes)
        guard let first = reader.readUInt8(), let stratum = reader.readUInt8(),
            let poll = reader.readUInt8(), let precision = reader.readUInt8(),
            let rootDelay = reader.readUInt32(), let rootDispersion = reader.readUInt32(),
            let referenceID = reader.readUInt32(), let reference = reader.readUInt64(),
            let origin = reader.readUInt64(), let receive = reader.readUInt64(),
            let transmit = reader.readUInt64()
        else { throw NTPPacketError(.truncated) }
        self.leap = NTPLeapIndicator(rawValue: first >> 6)!
        self.version = (first >> 3) & 0x7
        self.mode = NTPMode(rawValue: first & 0x7)!
        self.stratum = stratum
        self.poll = Int8(bitPattern: poll)
        self.precision = Int8(bitPattern: precision)
        self.rootDelay = NTPShortFormat(rawValue: rootDelay)
        self.rootDispersion = NTPShortFormat(rawValue: rootDispersion)
        self.referenceID = NTPReferenceID(rawValue: referenceID)
        self.referenceTimestamp = NTPTimestamp(rawValue: reference)
        self.originTimestamp = NTPTimestamp(rawValue: origin)
        self.receiveTimestamp = NTPTimestamp(rawValue: receive)
        self.transmitTimestamp = NTPTimestamp(rawValue: transmit)
        self.extensionFields = []
        if version == 4 {
            while reader.remaining > Self.maximumMACSize {
                guard let type = reader.readUInt16(), let length = reader.readUInt16(),
                    Int(length) >= Self.minimumExtensionFieldSize, length % 4 == 0,
                    let value = reader.readBytes(Int(length) - 4)
                else { throw NTPPacketError(.malformedExtensionField) }
                extensionFields.append(NTPExtensionField(type: type, value: value))
            }
            guard [0, 4, 20, 24].contains(reader.remaining) else { throw NTPPacketError(.malformedExtensionField) }
        }
        let trailer = reader.readBytes(reader.remaining) ?? []
        self.messageAuthenticationCode = trailer.isEmpty ? nil : trailer
    }

    /// Decodes a packet from raw memory (a socket buffer): the same checks as the generic decoder,
    /// specialized, for a server's hot path.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(NTPPacketError) {
        try self.init(decoding: bytes.bindMemory(to: UInt8.self))
    }

    /// Writes the 48-byte header (no extension fields, no MAC) at the start of `buffer`, which must
    /// hold at least ``headerSize`` bytes — a server's reply, without an intermediate array.
    /// - Returns: The bytes written: ``headerSize``.
    @discardableResult
    public func writeHeader(to buffer: UnsafeMutableRawBufferPointer) -> Int {
        precondition(buffer.count >= Self.headerSize, "an NTP header needs \(Self.headerSize) bytes")
        buffer[0] = leap.rawValue << 6 | (version & 0x7) << 3 | mode.rawValue
        buffer[1] = stratum
        buffer[2] = UInt8(bitPattern: poll)
        buffer[3] = UInt8(bitPattern: precision)
        buffer.storeBytes(of: rootDelay.rawValue.bigEndian, toByteOffset: 4, as: UInt32.self)
        buffer.storeBytes(of: rootDispersion.rawValue.bigEndian, toByteOffset: 8, as: UInt32.self)
        buffer.storeBytes(of: referenceID.rawValue.bigEndian, toByteOffset: 12, as: UInt32.self)
        buffer.storeBytes(of: referenceTimestamp.rawValue.bigEndian, toByteOffset: 16, as: UInt64.self)
        buffer.storeBytes(of: originTimestamp.rawValue.bigEndian, toByteOffset: 24, as: UInt64.self)
        buffer.storeBytes(of: receiveTimestamp.rawValue.bigEndian, toByteOffset: 32, as: UInt64.self)
        buffer.storeBytes(of: transmitTimestamp.rawValue.bigEndian, toByteOffset: 40, as: UInt64.self)
        return Self.headerSize
    }

    /// The packet's wire format: the header, the extension fields and the MAC, if any.
    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(encodedSize)
        bytes.append(contentsOf: repeatElement(0, count: Self.headerSize))
        bytes.withUnsafeMutableBytes { _ = writeHeader(to: $0) }
        for field in extensionFields { field.append(to: &bytes) }
        if let messageAuthenticationCode { bytes.append(contentsOf: messageAuthenticationCode) }
        return bytes
    }

    /// The length of ``encoded()``, without encoding.
    public var encodedSize: Int {
        Self.headerSize + extensionFields.reduce(0) { $0 + 4 + $1.value.count } + (messageAuthenticationCode?.count ?? 0)
    }
}

/// Reads big-endian integers from bytes, returning `nil` past the end (never trapping).
struct NTPByteReader {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: some Collection<UInt8>) {
        self.bytes = Array(bytes)
    }

    var remaining: Int { bytes.count - index }

    mutating func readUInt8() -> UInt8? {
        guard remaining >= 1 else { return nil }
        defer { index += 1 }
        return bytes[index]
    }

    mutating func readUInt16() -> UInt16? { readInteger() }
    mutating func readUInt32() -> UInt32? { readInteger() }
    mutating func readUInt64() -> UInt64? { readInteger() }

    mutating func readBytes(_ count: Int) -> [UInt8]? {
        guard count >= 0, remaining >= count else { return nil }
        defer { index += count }
        return Array(bytes[index..<index + count])
    }

    private mutating func readInteger<T: FixedWidthInteger & UnsignedInteger>() -> T? {
        let size = MemoryLayout<T>.size
        guard remaining >= size else { return nil }
        var value: T = 0
        for offset in 0..<size { value = value << 8 | T(bytes[index + offset]) }
        index += size
        return value
    }
}

extension NTPExtensionField {
    /// Appends the field's wire form: type, length (the value's and the 4 bytes before it), value.
    package func append(to bytes: inout [UInt8]) {
        bytes.appendBigEndian(type)
        bytes.appendBigEndian(UInt16(clamping: value.count + 4))
        bytes.append(contentsOf: value)
    }
}

extension [UInt8] {
    /// Appends `value`, most significant byte first.
    package mutating func appendBigEndian<T: FixedWidthInteger>(_ value: T) {
        let size = MemoryLayout<T>.size
        for shift in stride(from: (size - 1) * 8, through: 0, by: -8) {
            append(UInt8(truncatingIfNeeded: value >> shift))
        }
    }
}

extension FixedWidthInteger {
    /// The value's bytes, most significant first.
    package var bigEndianBytes: [UInt8] {
        var bytes: [UInt8] = []
        bytes.appendBigEndian(self)
        return bytes
    }
}
