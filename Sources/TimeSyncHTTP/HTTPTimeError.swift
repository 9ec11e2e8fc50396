import TimeSync

/// Why a response could not calibrate a clock, or a measurement failed. Rejected responses change
/// nothing.
public struct HTTPTimeError: Error, Sendable, Hashable, CustomStringConvertible {
    enum Code: Sendable, Hashable {
        case missingTimeHeader, malformedTimeHeader, unsupportedVersion
        case missingDate, conflictingDates, invalidDate, conflictingTimeHeaders
        case cachedResponse, notModifiedWithoutFreshDate, nonceMissing, nonceMismatch
        case inconsistentTimestamps, inconsistentSamples, noUsableSamples, invalidURL, invalidArgument, timeout
        case missingTimestamp, malformedTimestamp, notHTTPResponse
        case retryLater
    }

    let code: Code
    /// The parser's complaint about the `Date` header, for ``invalidDate``.
    public let dateError: HTTPDateError?
    /// The core's complaint about the timestamps, for ``inconsistentTimestamps``.
    public let sampleError: SampleError?
    /// Free-form detail for humans (which field, which value); not part of the error's identity.
    public let detail: String?
    /// The response's status code, for ``retryLater``.
    public let status: Int?
    /// For ``retryLater``: how long the server asked to wait (its `Retry-After`, within
    /// `0...HTTPRetryAfter.maximum`); `nil` when it sent none or one that could not be read.
    public let retryAfter: Duration?

    init(
        _ code: Code, detail: String? = nil, dateError: HTTPDateError? = nil, sampleError: SampleError? = nil,
        status: Int? = nil, retryAfter: Duration? = nil
    ) {
        self.code = code
        self.detail = detail
        self.dateError = dateError
        self.sampleError = sampleError
        self.status = status
        self.retryAfter = retryAfter
    }

    /// The same kind of error with a detail for humans (which value, how long was waited).
    public func withDetail(_ detail: String) -> HTTPTimeError {
        HTTPTimeError(
            code, detail: detail, dateError: dateError, sampleError: sampleError, status: status, retryAfter: retryAfter)
    }

    /// Two errors are equal when they are the same kind (details aside).
    public static func == (lhs: HTTPTimeError, rhs: HTTPTimeError) -> Bool { lhs.code == rhs.code }

    /// Hashes the kind of error (consistent with ``==(_:_:)``).
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// The response carries no `TimeSync-Time` header but one was required.
    public static let missingTimeHeader = HTTPTimeError(.missingTimeHeader)
    /// The `TimeSync-Time` header is not a valid structured field, or a member is missing or of the
    /// wrong type or range.
    public static let malformedTimeHeader = HTTPTimeError(.malformedTimeHeader)
    /// The `TimeSync-Time` header names a wire-format version this library does not know.
    public static let unsupportedVersion = HTTPTimeError(.unsupportedVersion)
    /// The response carries no `Date` header.
    public static let missingDate = HTTPTimeError(.missingDate)
    /// The response carries several different `Date` values.
    public static let conflictingDates = HTTPTimeError(.conflictingDates)
    /// The response carries several `TimeSync-Time` fields that differ: which one the server meant
    /// cannot be known, so none is used.
    public static let conflictingTimeHeaders = HTTPTimeError(.conflictingTimeHeaders)
    /// The `Date` header is not a valid HTTP-date (see ``dateError``).
    public static let invalidDate = HTTPTimeError(.invalidDate)
    /// The response came from a cache (`Age` above zero, or an unreadable `Age`): its time is stale.
    public static let cachedResponse = HTTPTimeError(.cachedResponse)
    /// A `304 Not Modified` that does not prove its time is fresh (no echo of the request's nonce).
    public static let notModifiedWithoutFreshDate = HTTPTimeError(.notModifiedWithoutFreshDate)
    /// A nonce was sent but the `TimeSync-Time` header does not echo one: cached or replayed.
    public static let nonceMissing = HTTPTimeError(.nonceMissing)
    /// The `TimeSync-Time` header echoes a different nonce: cached or replayed.
    public static let nonceMismatch = HTTPTimeError(.nonceMismatch)
    /// The timestamps contradict each other or the local send/receive instants (see ``sampleError``).
    public static let inconsistentTimestamps = HTTPTimeError(.inconsistentTimestamps)
    /// Samples of one server contradict each other with no majority agreeing (replayed or lying
    /// responses, or the server stepped its clock during the measurement).
    public static let inconsistentSamples = HTTPTimeError(.inconsistentSamples)
    /// Every response of a measurement was rejected.
    public static let noUsableSamples = HTTPTimeError(.noUsableSamples)
    /// The URL is not an absolute `http` or `https` URL with a host.
    public static let invalidURL = HTTPTimeError(.invalidURL)
    /// The load's response is not an HTTP response (a `file:` or `data:` URL, a custom protocol).
    public static let notHTTPResponse = HTTPTimeError(.notHTTPResponse)
    /// No complete response (head and body) arrived before the exchange's deadline; the detail says
    /// how long was waited and what had arrived.
    public static let timeout = HTTPTimeError(.timeout)
    /// An argument is out of range (for example zero samples).
    public static let invalidArgument = HTTPTimeError(.invalidArgument)
    /// The response has none of the observer's schemes (a Unix timestamp header, a custom reading).
    public static let missingTimestamp = HTTPTimeError(.missingTimestamp)
    /// A Unix timestamp header is not digits, is outside the supported years, or two copies differ.
    public static let malformedTimestamp = HTTPTimeError(.malformedTimestamp)
    /// The server answered `429 Too Many Requests` or `503 Service Unavailable`: it asks to be asked
    /// less often, or later (``status`` and ``retryAfter`` say what it said). A time source polls it
    /// again no sooner than its `Retry-After`; see ``pollOutcome(for:)``.
    public static let retryLater = HTTPTimeError(.retryLater)

    /// A human-readable explanation, with the detail when there is one.
    public var description: String {
        let base: String =
            switch code {
            case .missingTimeHeader: "response has no \(HTTPTimeHeader.name) header"
            case .malformedTimeHeader: "malformed \(HTTPTimeHeader.name) header"
            case .unsupportedVersion: "unsupported \(HTTPTimeHeader.name) version"
            case .missingDate: "response has no Date header"
            case .conflictingDates: "response has conflicting Date headers"
            case .conflictingTimeHeaders: "response has conflicting \(HTTPTimeHeader.name) headers"
            case .invalidDate: "invalid Date header" + (dateError.map { ": \($0)" } ?? "")
            case .cachedResponse: "response was served from a cache (Age > 0)"
            case .notModifiedWithoutFreshDate: "304 Not Modified without proof of a fresh time"
            case .nonceMissing: "\(HTTPTimeHeader.name) does not echo the request's nonce"
            case .nonceMismatch: "\(HTTPTimeHeader.name) echoes a different nonce"
            case .inconsistentTimestamps: "inconsistent timestamps" + (sampleError.map { ": \($0)" } ?? "")
            case .inconsistentSamples: "samples of the server contradict each other"
            case .noUsableSamples: "no usable sample: every response was rejected"
            case .invalidURL: "not an absolute http(s) URL"
            case .notHTTPResponse: "not an HTTP response"
            case .invalidArgument: "invalid argument"
            case .timeout: "no complete response in time"
            case .missingTimestamp: "response has no server time in the expected header"
            case .malformedTimestamp: "malformed timestamp header"
            case .retryLater:
                "the server answered \(status.map(String.init) ?? "429 or 503"), "
                    + (retryAfter.map { "retry after \($0.components.seconds) s" } ?? "without a usable Retry-After")
            }
        return detail.map { "\(base) (\($0))" } ?? base
    }
}
