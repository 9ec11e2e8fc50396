/// The NTS fields of a request an NTP server received (RFC 8915 §5.7): the identifier to echo, the
/// cookie that holds the association's keys, how many cookies to send back, and the Authenticator
/// to check with the client-to-server key in that cookie.
package struct NTSServerRequest: Sendable, Hashable {
    /// The Unique Identifier, echoed in the reply.
    package let uniqueIdentifier: [UInt8]
    /// The cookie, as sent (padding included).
    package let cookie: [UInt8]
    /// Cookie Placeholder fields: the reply carries one new cookie for the cookie and one for each.
    package let placeholders: Int
    private let nonce: [UInt8]
    private let ciphertext: [UInt8]
    private let associatedData: [UInt8]

    /// Reads the NTS fields of a request.
    /// - Returns: `nil` when the request has no NTS field at all (a plain NTP request).
    /// - Throws: `NTSServerRequestError` for NTS fields that break the rules: not exactly one Unique
    ///   Identifier (≥ 32 bytes), one cookie and one Authenticator (the last field), placeholders
    ///   longer or shorter than the cookie, or more than 7 of them.
    package init?(_ packet: NTPPacket) throws(NTSServerRequestError) {
        let fields = packet.extensionFields
        let nts: Set<UInt16> = [
            NTSExtensionFieldType.uniqueIdentifier, NTSExtensionFieldType.cookie, NTSExtensionFieldType.cookiePlaceholder,
            NTSExtensionFieldType.authenticator,
        ]
        guard fields.contains(where: { nts.contains($0.type) }) else { return nil }
        let identifiers = fields.filter { $0.type == NTSExtensionFieldType.uniqueIdentifier }
        let cookies = fields.filter { $0.type == NTSExtensionFieldType.cookie }
        let placeholders = fields.filter { $0.type == NTSExtensionFieldType.cookiePlaceholder }
        guard identifiers.count == 1, identifiers[0].value.count >= 32 else {
            throw NTSServerRequestError(.uniqueIdentifier, "not one Unique Identifier of 32 bytes or more")
        }
        guard cookies.count == 1 else { throw NTSServerRequestError(.cookie, "not one cookie") }
        guard placeholders.count < NTSKEResponse.maximumCookies, placeholders.allSatisfy({ $0.value.count == cookies[0].value.count }) else {
            throw NTSServerRequestError(.placeholders, "more than 7 placeholders, or placeholders of another length than the cookie")
        }
        guard let last = fields.last, last.type == NTSExtensionFieldType.authenticator,
            fields.filter({ $0.type == NTSExtensionFieldType.authenticator }).count == 1,
            let sealed = NTSFields.readAuthenticator(last)
        else { throw NTSServerRequestError(.authenticator, "not one well-formed Authenticator as the last field") }
        uniqueIdentifier = identifiers[0].value
        cookie = cookies[0].value
        self.placeholders = placeholders.count
        nonce = sealed.nonce
        ciphertext = sealed.ciphertext
        associatedData = NTSFields.associatedData(packet, before: fields.count - 1)
    }

    /// Whether the Authenticator opens with `cipher` (the client-to-server key from the cookie).
    package func isAuthentic(with cipher: some NTSCipher) -> Bool {
        cipher.open(ciphertext, nonce: nonce, associatedData: associatedData) != nil
    }

    /// Adds the NTS fields to a reply: the identifier, then an Authenticator sealed with the
    /// server-to-client key over the header and the identifier, its ciphertext holding `cookies`.
    /// - Parameters:
    ///   - reply: The mode-4 reply, timestamps set.
    ///   - cookies: The new cookies (one for the cookie and one per placeholder).
    ///   - cipher: The server-to-client key.
    ///   - nonce: A fresh random nonce (16 bytes).
    package func seal(_ reply: NTPPacket, cookies: [[UInt8]], cipher: some NTSCipher, nonce: [UInt8]) -> NTPPacket {
        var reply = reply
        reply.extensionFields = [NTPExtensionField(type: NTSExtensionFieldType.uniqueIdentifier, value: uniqueIdentifier)]
        reply.messageAuthenticationCode = nil
        let plaintext = NTSFields.encode(cookies.map { NTPExtensionField(type: NTSExtensionFieldType.cookie, value: NTSFields.padded($0)) })
        let ciphertext = cipher.seal(plaintext, nonce: nonce, associatedData: reply.encoded())
        reply.extensionFields.append(NTSFields.authenticator(nonce: nonce, ciphertext: ciphertext))
        return reply
    }

    /// The NTS NAK for this request: a Kiss-o'-Death `NTSN` echoing the identifier, unauthenticated
    /// (the server has no key to authenticate it with).
    package func negativeAcknowledgment(_ kiss: NTPPacket) -> NTPPacket {
        var kiss = kiss
        kiss.referenceID = .ntsNegativeAcknowledgment
        kiss.extensionFields = [NTPExtensionField(type: NTSExtensionFieldType.uniqueIdentifier, value: uniqueIdentifier)]
        kiss.messageAuthenticationCode = nil
        return kiss
    }
}

/// NTS fields in a request that break the protocol's rules: the request is dropped.
package struct NTSServerRequestError: TimeSyncError {
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
/// the server, called for every request that carries extension fields.
public protocol NTPRequestAuthenticator: Sendable {
    /// What to do with `request`.
    func authenticate(_ request: NTPPacket) -> NTPRequestAuthentication
}

/// An ``NTPRequestAuthenticator``'s verdict on one request.
public enum NTPRequestAuthentication: Sendable {
    /// No authentication asked for: answer as plain SNTP.
    case none
    /// Authentic: answer, sealing the reply with this (called once, after T3 is stamped).
    case authenticated(seal: @Sendable (NTPPacket) -> NTPPacket)
    /// The credentials cannot be used (a cookie under an unknown key): answer this NAK, built from the
    /// Kiss-o'-Death the server would send.
    case negativeAcknowledgment(@Sendable (NTPPacket) -> NTPPacket)
    /// Drop the request, for this reason.
    case drop(NTPServerDropReason)
}
