import TimeSync

/// Why Roughtime bytes were refused: a message that does not parse, a reply that does not verify, a
/// request a server will not answer, or a report that does not prove what it claims; or why a server's
/// URL or key cannot be used, or its signed replies cannot all be true.
///
/// Match on ``code`` (`error.code == .badResponseSignature`); ``detail`` says more, for people.
public struct RoughtimeError: CodedError {
    /// The kinds of refused Roughtime bytes, servers and keys.
    public enum Code: Sendable, Hashable {
        /// The bytes end before the message they announce.
        case truncated
        /// A framed packet without the `ROUGHTIM` header, or whose length field is not its length.
        case badFraming
        /// The header is impossible: no tags, too many, offsets not multiples of four, out of order or
        /// pointing outside the message.
        case malformedMessage
        /// The tags are not in strictly increasing order (a duplicate tag, or an unsorted list).
        case unsortedTags
        /// A tag the message must carry is absent.
        case missingTag
        /// A value has the wrong length for its tag.
        case badTagLength
        /// The version is not one this side speaks, or no version in the list is.
        case unsupportedVersion
        /// The reply uses a version the request did not offer.
        case versionNotOffered
        /// The server signed a list of versions that holds one both sides prefer to the one it chose.
        case downgrade
        /// The TYPE tag says request where a response is due, or the other way round.
        case wrongType
        /// The reply answers another nonce.
        case nonceMismatch
        /// The request's SRV names another key than the one the reply is verified with.
        case serverMismatch
        /// The delegation (CERT) is not signed by the server's long-term key.
        case badDelegationSignature
        /// The signed response (SREP) is not signed by the delegated key.
        case badResponseSignature
        /// The Merkle path from the request does not lead to the signed root.
        case merkleMismatch
        /// The midpoint lies outside the delegated key's validity window (MINT…MAXT).
        case midpointOutsideDelegation
        /// A key is not 32 bytes of base64 or hex, or its file cannot be read.
        case badKey
        /// A request shorter than the 1024 bytes that keep a reply from amplifying an attack.
        case requestTooShort
        /// A misbehaviour report that is not JSON of the expected shape, or proves nothing.
        case invalidReport
        /// No verified reply arrived before the deadline.
        case timeout
        /// The socket failed (no route, refused).
        case network
        /// The reply verifies but signs a time outside the ones a sample may carry
        /// (`SampleLimits.serverTimes`, 1900 to 2200): no honest server tells it.
        case timeOutOfRange
        /// A server URL that is not `roughtime://HOST:PORT?key=…`; ``RoughtimeError/detail`` quotes it.
        case invalidURL
        /// A server URL without the `key=` that pins the server's long-term public key.
        case missingKey
        /// A server URL whose `versions=` names a version this package does not know.
        case unknownVersion
        /// Replies verified under one key whose signed intervals, each widened by its round trip and
        /// carried to one instant, share no time: the server's clock jumped, or it lies.
        /// ``RoughtimeError/detail`` lists each reply's midpoint ± radius.
        case contradictorySignatures
    }

    /// Which kind of failure this is.
    public let code: Code
    /// Details: the tag, the values, the server.
    public let detail: String

    package init(_ code: Code, _ detail: String = "") {
        self.code = code
        self.detail = detail
    }

    /// Returns the error with `context` put in front of its detail (the server's name, say).
    public func prefixed(_ context: String) -> RoughtimeError {
        RoughtimeError(code, detail.isEmpty ? context : "\(context): \(detail)")
    }

    /// The bytes end before the message they announce.
    public static let truncated = RoughtimeError(.truncated)
    /// A framed packet without the `ROUGHTIM` header, or whose length field is not its length.
    public static let badFraming = RoughtimeError(.badFraming)
    /// The header is impossible: no tags, too many, offsets not multiples of four, out of order or
    /// pointing outside the message.
    public static let malformedMessage = RoughtimeError(.malformedMessage)
    /// The tags are not in strictly increasing order (a duplicate tag, or an unsorted list).
    public static let unsortedTags = RoughtimeError(.unsortedTags)
    /// A tag the message must carry is absent.
    public static let missingTag = RoughtimeError(.missingTag)
    /// A value has the wrong length for its tag.
    public static let badTagLength = RoughtimeError(.badTagLength)
    /// The version is not one this side speaks, or no version in the list is.
    public static let unsupportedVersion = RoughtimeError(.unsupportedVersion)
    /// The reply uses a version the request did not offer.
    public static let versionNotOffered = RoughtimeError(.versionNotOffered)
    /// The server signed a list of versions that holds one both sides prefer to the one it chose.
    public static let downgrade = RoughtimeError(.downgrade)
    /// The TYPE tag says request where a response is due, or the other way round.
    public static let wrongType = RoughtimeError(.wrongType)
    /// The reply answers another nonce.
    public static let nonceMismatch = RoughtimeError(.nonceMismatch)
    /// The request's SRV names another key than the one the reply is verified with.
    public static let serverMismatch = RoughtimeError(.serverMismatch)
    /// The delegation (CERT) is not signed by the server's long-term key.
    public static let badDelegationSignature = RoughtimeError(.badDelegationSignature)
    /// The signed response (SREP) is not signed by the delegated key.
    public static let badResponseSignature = RoughtimeError(.badResponseSignature)
    /// The Merkle path from the request does not lead to the signed root.
    public static let merkleMismatch = RoughtimeError(.merkleMismatch)
    /// The midpoint lies outside the delegated key's validity window (MINT…MAXT).
    public static let midpointOutsideDelegation = RoughtimeError(.midpointOutsideDelegation)
    /// A key is not 32 bytes of base64 or hex, or its file cannot be read.
    public static let badKey = RoughtimeError(.badKey)
    /// A request shorter than the 1024 bytes that keep a reply from amplifying an attack.
    public static let requestTooShort = RoughtimeError(.requestTooShort)
    /// A misbehaviour report that is not JSON of the expected shape, or proves nothing.
    public static let invalidReport = RoughtimeError(.invalidReport)
    /// No verified reply arrived before the deadline.
    public static let timeout = RoughtimeError(.timeout)
    /// The socket failed (no route, refused).
    public static let network = RoughtimeError(.network)
    /// The reply verifies but signs a time outside the ones a sample may carry
    /// (`SampleLimits.serverTimes`, 1900 to 2200): no honest server tells it.
    public static let timeOutOfRange = RoughtimeError(.timeOutOfRange)
    /// A server URL that is not `roughtime://HOST:PORT?key=…`; ``detail`` quotes it.
    public static let invalidURL = RoughtimeError(.invalidURL)
    /// A server URL without the `key=` that pins the server's long-term public key.
    public static let missingKey = RoughtimeError(.missingKey)
    /// A server URL whose `versions=` names a version this package does not know.
    public static let unknownVersion = RoughtimeError(.unknownVersion)
    /// Replies verified under one key whose signed intervals, each widened by its round trip and
    /// carried to one instant, share no time: the server's clock jumped, or it lies. ``detail``
    /// lists each reply's midpoint ± radius.
    public static let contradictorySignatures = RoughtimeError(.contradictorySignatures)

    public var description: String {
        let suffix = detail.isEmpty ? "" : ": \(detail)"
        let what: String =
            switch code {
            case .truncated: "truncated Roughtime message"
            case .badFraming: "not a Roughtime packet (ROUGHTIM header or length wrong)"
            case .malformedMessage: "malformed Roughtime message"
            case .unsortedTags: "Roughtime message tags out of order or repeated"
            case .missingTag: "Roughtime message lacks a required tag"
            case .badTagLength: "Roughtime value has the wrong length"
            case .unsupportedVersion: "no Roughtime version in common"
            case .versionNotOffered: "the Roughtime reply uses a version the request did not offer"
            case .downgrade: "the Roughtime server chose a version both sides rank below another they share"
            case .wrongType: "Roughtime TYPE is wrong for this message"
            case .nonceMismatch: "the Roughtime reply answers another nonce"
            case .serverMismatch: "the Roughtime request names another server key (SRV)"
            case .badDelegationSignature: "the Roughtime delegation is not signed by the server's key"
            case .badResponseSignature: "the Roughtime reply is not signed by the delegated key"
            case .merkleMismatch: "the Roughtime reply's Merkle path does not lead to its signed root"
            case .midpointOutsideDelegation: "the Roughtime midpoint lies outside the delegated key's window"
            case .badKey: "not a usable Roughtime key"
            case .requestTooShort: "Roughtime request shorter than 1024 bytes"
            case .invalidReport: "not a valid Roughtime misbehaviour report"
            case .timeout: "no verified Roughtime reply before the deadline"
            case .network: "Roughtime network failure"
            case .timeOutOfRange: "the Roughtime server signed a time outside 1900-2200, which no honest server tells"
            case .invalidURL: "invalid Roughtime server URL"
            case .missingKey: "the Roughtime server URL pins no key"
            case .unknownVersion: "the Roughtime server URL names an unknown version"
            case .contradictorySignatures: "the Roughtime server signed times that cannot all hold, even widened by each round trip"
            }
        return what + suffix
    }
}
