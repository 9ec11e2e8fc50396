/// The AEAD algorithms NTS negotiates, by IANA identifier.
package enum NTSAEADAlgorithm {
    /// AEAD_AES_SIV_CMAC_256 (RFC 5297): 32-byte keys, the algorithm every NTS implementation supports.
    package static let aesSIVCMAC256: UInt16 = 15
    /// The key length of ``aesSIVCMAC256``, in bytes.
    package static let aesSIVCMAC256KeyLength = 32
}

/// What a client asks of an NTS-KE server, and what the server makes of a request (RFC 8915 §4).
package struct NTSKERequest: Sendable, Hashable {
    /// The protocols offered, in order of preference.
    package var protocols: [UInt16]
    /// The AEAD algorithms offered, in order of preference.
    package var algorithms: [UInt16]

    /// A request for NTPv4 with AES-SIV-CMAC-256.
    package init(protocols: [UInt16] = [NTSKERecord.ntpV4Protocol], algorithms: [UInt16] = [NTSAEADAlgorithm.aesSIVCMAC256]) {
        self.protocols = protocols
        self.algorithms = algorithms
    }

    /// The request's records, End of Message included.
    package var records: [NTSKERecord] {
        [.nextProtocol(protocols), .aeadAlgorithm(algorithms), .endOfMessage]
    }

    /// Reads a client's request (its records without End of Message), as a server.
    /// - Throws: ``NTSKEError``: `.unrecognizedCriticalRecord` for a critical record of another type,
    ///   `.malformedMessage` for a missing, repeated or odd-length Next Protocol or AEAD record, or a
    ///   record a client may not send (Error, New Cookie). ``NTSKEError/errorCode`` is the code to answer.
    package init(records: [NTSKERecord]) throws(NTSKEError) {
        var protocols: [UInt16]?
        var algorithms: [UInt16]?
        for record in records {
            switch record.type {
            case NTSKERecord.nextProtocolType:
                try record.readOnce(into: &protocols, "Next Protocol")
            case NTSKERecord.aeadAlgorithmType:
                try record.readOnce(into: &algorithms, "AEAD Algorithm")
            case NTSKERecord.errorType, NTSKERecord.newCookieType:
                throw NTSKEError(.malformedMessage, "record type \(record.type) in a request")
            case NTSKERecord.warningType, NTSKERecord.ntpServerType, NTSKERecord.ntpPortType:
                continue  // a client may suggest a server or port; this server names its own
            default:
                if record.isCritical { throw NTSKEError(.unrecognizedCriticalRecord, "type \(record.type)") }
            }
        }
        guard let protocols else { throw NTSKEError(.malformedMessage, "no Next Protocol record") }
        self.protocols = protocols
        self.algorithms = algorithms ?? []
    }
}

extension NTSKERecord {
    /// Reads a Next Protocol or AEAD Algorithm record into its slot, which must still be empty.
    /// - Throws: `.malformedMessage` for a second record of the kind or an odd body length.
    func readOnce(into slot: inout [UInt16]?, _ name: String) throws(NTSKEError) {
        guard slot == nil, let values = uint16s else { throw NTSKEError(.malformedMessage, "a repeated or odd-length \(name) record") }
        slot = values
    }
}

extension NTSKEError {
    /// The Error record code a server answers this failure of a request with.
    package var errorCode: NTSKEErrorCode {
        code == .unrecognizedCriticalRecord ? .unrecognizedCriticalRecord : .badRequest
    }
}

/// A server's answer to a key exchange (RFC 8915 §4): the protocol and algorithm chosen, the cookies,
/// and where to send NTP requests.
package struct NTSKEResponse: Sendable, Hashable {
    /// The most bytes one cookie may take: eight of them, in an NTP reply with its other fields, stay
    /// within what a client reads (2 KiB).
    package static let maximumCookieSize = 224
    /// The most cookies kept from one exchange.
    package static let maximumCookies = 8

    /// The AEAD algorithm chosen.
    package var algorithm: UInt16
    /// The cookies, in the order sent (at most ``maximumCookies``).
    package var cookies: [[UInt8]]
    /// The NTP server to use, when it is not the key-exchange host.
    package var server: String?
    /// The NTP port to use, when it is not 123.
    package var port: UInt16?
    /// The codes of any Warning records.
    package var warnings: [UInt16]

    /// Creates a response, as a server sends it.
    package init(algorithm: UInt16, cookies: [[UInt8]], server: String? = nil, port: UInt16? = nil) {
        self.algorithm = algorithm
        self.cookies = cookies
        self.server = server
        self.port = port
        self.warnings = []
    }

    /// The response's records, End of Message included.
    package var records: [NTSKERecord] {
        var records: [NTSKERecord] = [.nextProtocol([NTSKERecord.ntpV4Protocol]), .aeadAlgorithm([algorithm])]
        if let server { records.append(.ntpServer(server)) }
        if let port { records.append(.ntpPort(port)) }
        records += cookies.map(NTSKERecord.newCookie)
        records.append(.endOfMessage)
        return records
    }

    /// The answer to a request: NTPv4 and AES-SIV-CMAC-256 if offered, else the Error record to send.
    /// - Returns: The records to send, End of Message included; `nil` when the request offers
    ///   something acceptable (the server then sends ``records``).
    package static func refusal(of request: NTSKERequest) -> [NTSKERecord]? {
        guard request.protocols.contains(NTSKERecord.ntpV4Protocol) else {
            // No protocol in common: an empty Next Protocol record says so.
            return [.nextProtocol([]), .endOfMessage]
        }
        guard request.algorithms.contains(NTSAEADAlgorithm.aesSIVCMAC256) else {
            return [.nextProtocol([NTSKERecord.ntpV4Protocol]), .aeadAlgorithm([]), .endOfMessage]
        }
        return nil
    }

    /// Reads a server's response (its records without End of Message), as the client that sent `request`.
    /// - Throws: ``NTSKEError``: `.serverError` for an Error record; `.unrecognizedCriticalRecord`;
    ///   `.unsupportedProtocol` when the server chose no protocol or one not offered;
    ///   `.unsupportedAlgorithm` likewise for the AEAD; `.noCookies`; `.badServerNegotiation` for a
    ///   Server record that is not a host name or address, or a Port record that is not 2 bytes;
    ///   `.malformedMessage` for a repeated record or a cookie that is empty or over
    ///   ``maximumCookieSize`` bytes.
    package init(records: [NTSKERecord], request: NTSKERequest = NTSKERequest()) throws(NTSKEError) {
        var protocols: [UInt16]?
        var algorithms: [UInt16]?
        var cookies: [[UInt8]] = []
        var server: String?
        var port: UInt16?
        var warnings: [UInt16] = []
        for record in records {
            switch record.type {
            case NTSKERecord.errorType:
                let code = record.uint16s?.first.map(NTSKEErrorCode.init(rawValue:))
                throw NTSKEError(.serverError, serverCode: code ?? .badRequest)
            case NTSKERecord.warningType:
                warnings.append(record.uint16s?.first ?? 0)
            case NTSKERecord.nextProtocolType:
                try record.readOnce(into: &protocols, "Next Protocol")
            case NTSKERecord.aeadAlgorithmType:
                try record.readOnce(into: &algorithms, "AEAD Algorithm")
            case NTSKERecord.newCookieType:
                guard !record.body.isEmpty, record.body.count <= Self.maximumCookieSize else {
                    throw NTSKEError(.malformedMessage, "a cookie of \(record.body.count) bytes (1 to \(Self.maximumCookieSize) accepted)")
                }
                if cookies.count < Self.maximumCookies { cookies.append(record.body) }
            case NTSKERecord.ntpServerType:
                guard server == nil, let host = Self.host(record.body) else {
                    throw NTSKEError(.badServerNegotiation, "server record: not one host name or address")
                }
                server = host
            case NTSKERecord.ntpPortType:
                guard port == nil, let values = record.uint16s, values.count == 1, values[0] != 0 else {
                    throw NTSKEError(.badServerNegotiation, "port record: not one port from 1 to 65535")
                }
                port = values[0]
            default:
                if record.isCritical { throw NTSKEError(.unrecognizedCriticalRecord, "type \(record.type)") }
            }
        }
        guard let protocols, protocols.count == 1, request.protocols.contains(protocols[0]) else {
            throw NTSKEError(.unsupportedProtocol, "the server chose \(protocols.map { "\($0)" } ?? "no protocol")")
        }
        guard let algorithms, algorithms.count == 1, request.algorithms.contains(algorithms[0]) else {
            throw NTSKEError(.unsupportedAlgorithm, "the server chose \(algorithms.map { "\($0)" } ?? "no algorithm")")
        }
        guard !cookies.isEmpty else { throw NTSKEError(.noCookies) }
        self.algorithm = algorithms[0]
        self.cookies = cookies
        self.server = server
        self.port = port
        self.warnings = warnings
    }

    /// A host name (letters, digits, '-', '.') or an IP address literal, at most 253 bytes; a NUL, a
    /// space or any control byte refuses it.
    private static func host(_ body: [UInt8]) -> String? {
        guard (1...253).contains(body.count), body.allSatisfy({ (0x21...0x7E).contains($0) }),
            let text = String(validating: body, as: UTF8.self)
        else { return nil }
        if IPAddress(text) != nil { return text }
        let allowed = text.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == ".") }
        return allowed && !text.hasPrefix(".") && !text.hasPrefix("-") ? text : nil
    }
}
