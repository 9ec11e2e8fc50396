/// One NTS Key Establishment record (RFC 8915 §4): a critical bit, a 15-bit type and a body of at
/// most 65,535 bytes. A key exchange is a stream of records ending with End of Message.
package struct NTSKERecord: Sendable, Hashable {
    /// The record type, 0–32767.
    package var type: UInt16
    /// Whether a peer that does not know ``type`` must refuse the message rather than skip it.
    package var isCritical: Bool
    /// The body.
    package var body: [UInt8]

    /// Creates a record.
    /// - Precondition: `type` fits in 15 bits and `body` in 65,535 bytes.
    package init(type: UInt16, isCritical: Bool, body: [UInt8] = []) {
        precondition(type <= 0x7FFF, "an NTS-KE record type has 15 bits")
        precondition(body.count <= 0xFFFF, "an NTS-KE record body holds at most 65535 bytes")
        self.type = type
        self.isCritical = isCritical
        self.body = body
    }

    /// End of Message (type 0, critical, empty).
    package static let endOfMessageType: UInt16 = 0
    /// NTS Next Protocol Negotiation (type 1): the protocols, 16 bits each (0 is NTPv4).
    package static let nextProtocolType: UInt16 = 1
    /// Error (type 2): a 16-bit code.
    package static let errorType: UInt16 = 2
    /// Warning (type 3): a 16-bit code.
    package static let warningType: UInt16 = 3
    /// AEAD Algorithm Negotiation (type 4): IANA AEAD identifiers, 16 bits each.
    package static let aeadAlgorithmType: UInt16 = 4
    /// New Cookie for NTPv4 (type 5): one opaque cookie.
    package static let newCookieType: UInt16 = 5
    /// NTPv4 Server Negotiation (type 6): the host (name or IP literal) to send NTP requests to.
    package static let ntpServerType: UInt16 = 6
    /// NTPv4 Port Negotiation (type 7): the UDP port to send NTP requests to.
    package static let ntpPortType: UInt16 = 7

    /// The protocol identifier of NTPv4 in Next Protocol records.
    package static let ntpV4Protocol: UInt16 = 0

    /// The End of Message record.
    package static let endOfMessage = NTSKERecord(type: endOfMessageType, isCritical: true)

    /// A Next Protocol record offering or choosing `protocols` (an empty list refuses them all).
    package static func nextProtocol(_ protocols: [UInt16]) -> NTSKERecord {
        NTSKERecord(type: nextProtocolType, isCritical: true, body: protocols.flatMap(\.bigEndianBytes))
    }

    /// An AEAD Algorithm record offering or choosing `algorithms`.
    package static func aeadAlgorithm(_ algorithms: [UInt16]) -> NTSKERecord {
        NTSKERecord(type: aeadAlgorithmType, isCritical: true, body: algorithms.flatMap(\.bigEndianBytes))
    }

    /// An Error record.
    package static func error(_ code: NTSKEErrorCode) -> NTSKERecord {
        NTSKERecord(type: errorType, isCritical: true, body: code.rawValue.bigEndianBytes)
    }

    /// A New Cookie record.
    package static func newCookie(_ cookie: [UInt8]) -> NTSKERecord {
        NTSKERecord(type: newCookieType, isCritical: false, body: cookie)
    }

    /// An NTPv4 Server Negotiation record naming `host`.
    package static func ntpServer(_ host: String) -> NTSKERecord {
        NTSKERecord(type: ntpServerType, isCritical: true, body: Array(host.utf8))
    }

    /// An NTPv4 Port Negotiation record.
    package static func ntpPort(_ port: UInt16) -> NTSKERecord {
        NTSKERecord(type: ntpPortType, isCritical: true, body: port.bigEndianBytes)
    }

    /// The record's wire form: 2 bytes of critical bit and type, 2 of body length, the body.
    package func encoded() -> [UInt8] {
        var bytes = ((isCritical ? 0x8000 : 0) | type).bigEndianBytes
        bytes += UInt16(body.count).bigEndianBytes
        bytes += body
        return bytes
    }

    /// The wire form of a whole message.
    package static func encode(_ records: [NTSKERecord]) -> [UInt8] {
        records.flatMap { $0.encoded() }
    }

    /// The body read as 16-bit big-endian values; `nil` for an odd length.
    var uint16s: [UInt16]? {
        guard body.count % 2 == 0 else { return nil }
        return stride(from: 0, to: body.count, by: 2).map { UInt16(body[$0]) << 8 | UInt16(body[$0 + 1]) }
    }
}

/// The codes of NTS-KE Error records (RFC 8915 §4.1.3).
public struct NTSKEErrorCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public var rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// 0: the peer sent a critical record of a type this side does not know.
    public static let unrecognizedCriticalRecord = NTSKEErrorCode(rawValue: 0)
    /// 1: the request was malformed or asked for nothing this side supports.
    public static let badRequest = NTSKEErrorCode(rawValue: 1)
    /// 2: the server failed for reasons of its own.
    public static let internalServerError = NTSKEErrorCode(rawValue: 2)

    public var description: String {
        switch self {
        case .unrecognizedCriticalRecord: "unrecognized critical record (0)"
        case .badRequest: "bad request (1)"
        case .internalServerError: "internal server error (2)"
        default: "error \(rawValue)"
        }
    }
}

/// Reads NTS-KE records off a byte stream as it arrives (TLS delivers it in pieces), up to End of
/// Message, within a size limit.
package struct NTSKERecordDecoder: Sendable {
    /// The most bytes a message may take, End of Message included.
    package let maximumMessageSize: Int
    /// The records read so far, End of Message excluded.
    package private(set) var records: [NTSKERecord] = []
    /// Whether End of Message has been read.
    package private(set) var isComplete = false
    private var pending: [UInt8] = []
    private var consumed = 0

    /// Creates a decoder.
    /// - Parameter maximumMessageSize: The most bytes a message may take (at least 4).
    package init(maximumMessageSize: Int) {
        self.maximumMessageSize = max(4, maximumMessageSize)
    }

    /// Takes the next bytes of the stream and reads every record they complete.
    /// - Throws: ``NTSKEError`` `.malformedMessage` for bytes after End of Message or an End of
    ///   Message with a body, `.messageTooLarge` past ``maximumMessageSize``. After a throw the
    ///   decoder is spent: the connection should be closed.
    package mutating func append(_ bytes: some Collection<UInt8>) throws(NTSKEError) {
        guard !bytes.isEmpty else { return }
        guard !isComplete else { throw NTSKEError(.malformedMessage, "data after End of Message") }
        guard consumed + pending.count + bytes.count <= maximumMessageSize else {
            throw NTSKEError(.messageTooLarge, "over \(maximumMessageSize) bytes")
        }
        pending.append(contentsOf: bytes)
        var index = 0
        while pending.count - index >= 4 {
            let head = UInt16(pending[index]) << 8 | UInt16(pending[index + 1])
            let length = Int(pending[index + 2]) << 8 | Int(pending[index + 3])
            guard pending.count - index - 4 >= length else { break }
            let record = NTSKERecord(
                type: head & 0x7FFF, isCritical: head & 0x8000 != 0, body: Array(pending[index + 4..<index + 4 + length]))
            index += 4 + length
            if record.type == NTSKERecord.endOfMessageType {
                guard record.body.isEmpty, index == pending.count else {
                    throw NTSKEError(.malformedMessage, record.body.isEmpty ? "data after End of Message" : "End of Message with a body")
                }
                isComplete = true
                break
            }
            records.append(record)
        }
        consumed += index
        pending.removeFirst(index)
    }
}
