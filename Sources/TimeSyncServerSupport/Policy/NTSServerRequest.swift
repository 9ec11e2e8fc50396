import TimeSync
import TimeSyncWire

/// Where the NTS fields of a request an NTP server received lie in its bytes (RFC 8915 §5.7): the
/// Unique Identifier to echo, the cookie that holds the association's keys, how many cookies to send
/// back, and the Authenticator to check with the client-to-server key in that cookie. Read in place,
/// nothing copied: the server seals its reply from these ranges.
package struct NTSRequestLayout: Sendable, Hashable {
    /// The whole Unique Identifier field (type, length and value), echoed in the reply as it came.
    package let uniqueIdentifierField: Range<Int>
    /// The cookie field's value: the cookie as sent (padding included).
    package let cookie: Range<Int>
    /// Cookie Placeholder fields: the reply carries one new cookie for the cookie and one for each.
    package let placeholders: Int
    /// Where the Authenticator field starts: it authenticates every byte before it.
    package let authenticatorStart: Int
    /// The Authenticator's nonce.
    package let nonce: Range<Int>
    /// The Authenticator's ciphertext (the 16-byte tag, then any encrypted fields).
    package let ciphertext: Range<Int>

    /// Reads the NTS fields of a request whose header and extension area are well formed
    /// (`NTPPacket.decodeHeader(_:)` accepted them).
    /// - Returns: `nil` when the request has no NTS field at all (a plain NTP request).
    /// - Throws: ``NTSServerRequestError`` for NTS fields that break the rules: not exactly one Unique
    ///   Identifier (≥ 32 bytes), one cookie and one Authenticator (the last field), placeholders
    ///   longer or shorter than the cookie, or more than 7 of them.
    package init?(_ bytes: UnsafeRawBufferPointer) throws(NTSServerRequestError) {
        var identifiers = 0
        var identifier = 0..<0
        var cookies = 0
        var cookie = 0..<0
        var placeholders = 0
        var shortestPlaceholder = Int.max
        var longestPlaceholder = 0
        var authenticators = 0
        var authenticator = 0..<0
        var lastType: UInt16 = 0
        var offset = NTPPacket.headerSize
        var nts = false
        while bytes.count - offset > NTPPacket.maximumMACSize {
            let type = UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
            let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            guard length >= NTPPacket.minimumExtensionFieldSize, length <= bytes.count - offset else { return nil }
            let value = offset + 4..<offset + length
            switch type {
            case NTSExtensionFieldType.uniqueIdentifier:
                nts = true
                identifiers += 1
                identifier = offset..<offset + length
            case NTSExtensionFieldType.cookie:
                nts = true
                cookies += 1
                cookie = value
            case NTSExtensionFieldType.cookiePlaceholder:
                nts = true
                shortestPlaceholder = min(shortestPlaceholder, value.count)
                longestPlaceholder = max(longestPlaceholder, value.count)
                placeholders += 1
            case NTSExtensionFieldType.authenticator:
                nts = true
                authenticators += 1
                authenticator = offset..<offset + length
            default: break
            }
            lastType = type
            offset += length
        }
        guard nts else { return nil }
        guard identifiers == 1, identifier.count - 4 >= 32 else {
            throw NTSServerRequestError(.uniqueIdentifier, "not one Unique Identifier of 32 bytes or more")
        }
        guard cookies == 1 else { throw NTSServerRequestError(.cookie, "not one cookie") }
        guard placeholders < NTSKEResponse.maximumCookies,
            placeholders == 0 || (shortestPlaceholder == cookie.count && longestPlaceholder == cookie.count)
        else {
            throw NTSServerRequestError(.placeholders, "more than 7 placeholders, or placeholders of another length than the cookie")
        }
        let notLast = NTSServerRequestError(.authenticator, "not one well-formed Authenticator as the last field")
        guard authenticators == 1, lastType == NTSExtensionFieldType.authenticator else { throw notLast }
        // The Authenticator's value: nonce length, ciphertext length, the nonce and the ciphertext, each padded to 4.
        let value = authenticator.lowerBound + 4..<authenticator.upperBound
        guard value.count >= 4 else { throw notLast }
        let nonceLength = Int(bytes[value.lowerBound]) << 8 | Int(bytes[value.lowerBound + 1])
        let ciphertextLength = Int(bytes[value.lowerBound + 2]) << 8 | Int(bytes[value.lowerBound + 3])
        let nonceEnd = 4 + (nonceLength + 3) / 4 * 4
        guard nonceLength >= 1, ciphertextLength >= 16, nonceEnd + ciphertextLength <= value.count else { throw notLast }
        uniqueIdentifierField = identifier
        self.cookie = cookie
        self.placeholders = placeholders
        authenticatorStart = authenticator.lowerBound
        nonce = value.lowerBound + 4..<value.lowerBound + 4 + nonceLength
        ciphertext = value.lowerBound + nonceEnd..<value.lowerBound + nonceEnd + ciphertextLength
    }

    /// The size of the authenticated reply: the header, the Unique Identifier field as it came, and the
    /// Authenticator holding `cookies` cookie fields of `cookieLength`-byte cookies.
    package func replySize(cookies: Int, cookieLength: Int) -> Int {
        NTPPacket.headerSize + uniqueIdentifierField.count + NTSFields.authenticatorSize(plaintext: cookies * (4 + NTSFields.paddedLength(cookieLength)))
    }
}

/// NTS fields in a request that break the protocol's rules: the request is dropped.
package struct NTSServerRequestError: CodedError {
    /// The NTS fields that break the rules.
    package enum Code: Sendable, Hashable {
        /// Not exactly one Unique Identifier of 32 bytes or more.
        case uniqueIdentifier
        /// Not exactly one cookie.
        case cookie
        /// More than 7 placeholders, or placeholders of another length than the cookie.
        case placeholders
        /// Not exactly one well-formed Authenticator, or not as the last field.
        case authenticator
    }

    /// Which rule the request breaks.
    package let code: Code
    /// What is wrong.
    package let detail: String

    init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    package var description: String { "malformed NTS request: \(detail)" }
}

/// Checks the authenticated requests an NTP server receives (NTS), and seals the replies: given to
/// the server, called for every admitted request that carries extension fields.
public protocol NTPRequestAuthenticator: Sendable {
    /// Checks `request` and, when it asks to be authenticated, writes the answer into `reply`.
    ///
    /// - Parameters:
    ///   - request: The datagram, its header and extension area well formed.
    ///   - reply: Where the answer goes: as many bytes as the request, as a reply is never longer
    ///     than what it answers.
    ///   - header: The answer's 48-byte header: `.reply` stamps the transmit time, so call it as late
    ///     as possible and once; `.negativeAcknowledgment` gives the NTS NAK's Kiss-o'-Death.
    /// - Returns: What was done; the bytes written are `reply`'s first `length`.
    func authenticate(
        _ request: UnsafeRawBufferPointer, into reply: UnsafeMutableRawBufferPointer, header: (NTPAnswerHeader) -> NTPPacket
    ) -> NTPRequestAuthentication
}

/// Which header an ``NTPRequestAuthenticator`` asks for.
public enum NTPAnswerHeader: Sendable, Hashable {
    /// A mode-4 reply, its transmit timestamp read now.
    case reply
    /// The NTS NAK: a Kiss-o'-Death `NTSN`.
    case negativeAcknowledgment
}

/// An ``NTPRequestAuthenticator``'s verdict on one request.
public enum NTPRequestAuthentication: Sendable, Hashable {
    /// No authentication asked for: answer as plain SNTP.
    case none
    /// Authentic: the sealed reply is written, `length` bytes.
    case authenticated(length: Int)
    /// The credentials cannot be used (a cookie under an unknown key): the NTS NAK is written,
    /// `length` bytes.
    case negativeAcknowledgment(length: Int)
    /// Drop the request, for this reason.
    case drop(NTPServerDropReason)
}
