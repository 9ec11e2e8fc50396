import TimeSync

/// Why a response could not calibrate a clock, or a measurement failed. Rejected responses change
/// nothing.
package struct HTTPTimeError: CodedError {
    /// The kinds of rejected response or failed measurement.
    package enum Code: Sendable, Hashable {
        /// The response carries no `TimeSync-Time` header but one was required.
        case missingTimeHeader
        /// The `TimeSync-Time` header is not a valid structured field, or a member is missing or of the
        /// wrong type or range.
        case malformedTimeHeader
        /// The `TimeSync-Time` header names a wire-format version this library does not know.
        case unsupportedVersion
        /// The response carries no `Date` header.
        case missingDate
        /// The response carries several different `Date` values.
        case conflictingDates
        /// The `Date` header is not a valid HTTP-date; the `HTTPTimeError.underlying` `HTTPDateError`
        /// says why.
        case invalidDate
        /// The response carries several `TimeSync-Time` fields that differ: which one the server meant
        /// cannot be known, so none is used.
        case conflictingTimeHeaders
        /// The response came from a cache (`Age` above zero, or an unreadable `Age`): its time is stale.
        case cachedResponse
        /// A `304 Not Modified` that does not prove its time is fresh (no echo of the request's nonce).
        case notModifiedWithoutFreshDate
        /// A nonce was sent but the `TimeSync-Time` header does not echo one: cached or replayed.
        case nonceMissing
        /// The `TimeSync-Time` header echoes a different nonce: cached or replayed.
        case nonceMismatch
        /// The timestamps contradict each other or the local send/receive instants; the
        /// `HTTPTimeError.underlying` `SampleError` says how.
        case inconsistentTimestamps
        /// Samples of one server contradict each other with no majority agreeing (replayed or lying
        /// responses, or the server stepped its clock during the measurement).
        case inconsistentSamples
        /// Every response of a measurement was rejected.
        case noUsableSamples
        /// The URL is not an absolute `http` or `https` URL with a host.
        case invalidURL
        /// An argument is out of range (for example zero samples).
        case invalidArgument
        /// No complete response (head and body) arrived before the exchange's deadline; the detail says
        /// how long was waited and what had arrived.
        case timeout
        /// The response has none of the observer's schemes (a Unix timestamp header, a custom reading).
        case missingTimestamp
        /// A Unix timestamp header is not digits, is outside the supported years, or two copies differ.
        case malformedTimestamp
        /// The load's response is not an HTTP response (a `file:` or `data:` URL, a custom protocol).
        case notHTTPResponse
        /// The server answered `429 Too Many Requests` or `503 Service Unavailable`: it asks to be asked
        /// less often, or later (`HTTPTimeError.status` and `HTTPTimeError.retryAfter` say what it
        /// said). A time source polls it again no sooner than its `Retry-After`; see
        /// `HTTPTimeError.pollOutcome`.
        case retryLater
        /// The source answered with `TimeSync-Time` before and now without it: a cache, a replayed
        /// response or another server answered. The response is refused rather than read from a
        /// weaker header (`Date`) that carries no nonce.
        case timeHeaderWithdrawn
    }

    /// Which kind of failure this is.
    package let code: Code
    /// For ``invalidDate``, the parser's complaint about the `Date` header (an `HTTPDateError`); for
    /// ``inconsistentTimestamps``, the core's complaint about the timestamps (a `SampleError`).
    package let underlying: (any Error)?
    /// Free-form detail for people (which field, which value), added to the message.
    package let detail: String?
    /// The response's status code, for ``retryLater``.
    package let status: Int?
    /// For ``retryLater``: how long the server asked to wait (its `Retry-After`, within
    /// `0...HTTPRetryAfter.maximum`); `nil` when it sent none or one that could not be read.
    package let retryAfter: Duration?

    init(
        _ code: Code, detail: String? = nil, underlying: (any Error)? = nil, status: Int? = nil, retryAfter: Duration? = nil
    ) {
        self.code = code
        self.detail = detail
        self.underlying = underlying
        self.status = status
        self.retryAfter = retryAfter
    }

    /// The same kind of error with a detail for humans (which value, how long was waited).
    package func withDetail(_ detail: String) -> HTTPTimeError {
        HTTPTimeError(code, detail: detail, underlying: underlying, status: status, retryAfter: retryAfter)
    }

    /// The source answered with `TimeSync-Time` before and now without it.
    package static let timeHeaderWithdrawn = HTTPTimeError(.timeHeaderWithdrawn)
    /// The response carries no `TimeSync-Time` header but one was required.
    package static let missingTimeHeader = HTTPTimeError(.missingTimeHeader)
    /// The `TimeSync-Time` header is not a valid structured field, or a member is missing or of the
    /// wrong type or range.
    package static let malformedTimeHeader = HTTPTimeError(.malformedTimeHeader)
    /// The `TimeSync-Time` header names a wire-format version this library does not know.
    package static let unsupportedVersion = HTTPTimeError(.unsupportedVersion)
    /// The response carries no `Date` header.
    package static let missingDate = HTTPTimeError(.missingDate)
    /// The response carries several different `Date` values.
    package static let conflictingDates = HTTPTimeError(.conflictingDates)
    /// The response carries several `TimeSync-Time` fields that differ: which one the server meant
    /// cannot be known, so none is used.
    package static let conflictingTimeHeaders = HTTPTimeError(.conflictingTimeHeaders)
    /// The `Date` header is not a valid HTTP-date (see ``underlying``).
    package static let invalidDate = HTTPTimeError(.invalidDate)
    /// The response came from a cache (`Age` above zero, or an unreadable `Age`): its time is stale.
    package static let cachedResponse = HTTPTimeError(.cachedResponse)
    /// A `304 Not Modified` that does not prove its time is fresh (no echo of the request's nonce).
    package static let notModifiedWithoutFreshDate = HTTPTimeError(.notModifiedWithoutFreshDate)
    /// A nonce was sent but the `TimeSync-Time` header does not echo one: cached or replayed.
    package static let nonceMissing = HTTPTimeError(.nonceMissing)
    /// The `TimeSync-Time` header echoes a different nonce: cached or replayed.
    package static let nonceMismatch = HTTPTimeError(.nonceMismatch)
    /// The timestamps contradict each other or the local send/receive instants (see ``underlying``).
    package static let inconsistentTimestamps = HTTPTimeError(.inconsistentTimestamps)
    /// Samples of one server contradict each other with no majority agreeing (replayed or lying
    /// responses, or the server stepped its clock during the measurement).
    package static let inconsistentSamples = HTTPTimeError(.inconsistentSamples)
    /// Every response of a measurement was rejected.
    package static let noUsableSamples = HTTPTimeError(.noUsableSamples)
    /// The URL is not an absolute `http` or `https` URL with a host.
    package static let invalidURL = HTTPTimeError(.invalidURL)
    /// The load's response is not an HTTP response (a `file:` or `data:` URL, a custom protocol).
    package static let notHTTPResponse = HTTPTimeError(.notHTTPResponse)
    /// No complete response (head and body) arrived before the exchange's deadline; the detail says
    /// how long was waited and what had arrived.
    package static let timeout = HTTPTimeError(.timeout)
    /// An argument is out of range (for example zero samples).
    package static let invalidArgument = HTTPTimeError(.invalidArgument)
    /// The response has none of the observer's schemes (a Unix timestamp header, a custom reading).
    package static let missingTimestamp = HTTPTimeError(.missingTimestamp)
    /// A Unix timestamp header is not digits, is outside the supported years, or two copies differ.
    package static let malformedTimestamp = HTTPTimeError(.malformedTimestamp)
    /// The server answered `429 Too Many Requests` or `503 Service Unavailable`: it asks to be asked
    /// less often, or later (``status`` and ``retryAfter`` say what it said). A time source polls it
    /// again no sooner than its `Retry-After`; see ``pollOutcome``.
    package static let retryLater = HTTPTimeError(.retryLater)

    /// A human-readable explanation, with the detail when there is one.
    package var description: String {
        let base: String =
            switch code {
            case .missingTimeHeader: "response has no \(HTTPTimeHeader.name) header"
            case .malformedTimeHeader: "malformed \(HTTPTimeHeader.name) header"
            case .unsupportedVersion: "unsupported \(HTTPTimeHeader.name) version"
            case .missingDate: "response has no Date header"
            case .conflictingDates: "response has conflicting Date headers"
            case .conflictingTimeHeaders: "response has conflicting \(HTTPTimeHeader.name) headers"
            case .invalidDate: "invalid Date header" + (underlying.map { ": \($0)" } ?? "")
            case .cachedResponse: "response was served from a cache (Age > 0)"
            case .notModifiedWithoutFreshDate: "304 Not Modified without proof of a fresh time"
            case .nonceMissing: "\(HTTPTimeHeader.name) does not echo the request's nonce"
            case .nonceMismatch: "\(HTTPTimeHeader.name) echoes a different nonce"
            case .inconsistentTimestamps: "inconsistent timestamps" + (underlying.map { ": \($0)" } ?? "")
            case .inconsistentSamples: "samples of the server contradict each other"
            case .noUsableSamples: "no usable sample: every response was rejected"
            case .invalidURL: "not an absolute http(s) URL"
            case .notHTTPResponse: "not an HTTP response"
            case .invalidArgument: "invalid argument"
            case .timeout: "no complete response in time"
            case .missingTimestamp: "response has no server time in the expected header"
            case .malformedTimestamp: "malformed timestamp header"
            case .timeHeaderWithdrawn:
                "the server sent \(HTTPTimeHeader.name) before and this response has none: a cache, a replay or another server answered; refused (find what stands between you and the server, or use a Date-only source if the header was dropped on purpose)"
            case .retryLater:
                "the server answered \(status.map(String.init) ?? "429 or 503"), "
                    + (retryAfter.map { "retry after \($0.components.seconds) s" } ?? "without a usable Retry-After")
            }
        return detail.map { "\(base) (\($0))" } ?? base
    }
}

extension HTTPTimeError: TimeSyncErrorConvertible {
    package var timeSyncError: TimeSyncError {
        TimeSyncError(code == .invalidURL ? .invalidURL : .invalidResponse, description, cause: self)
    }
}

extension TimeSyncError.Code {
    /// A URL that is not an absolute `http` or `https` URL with a host.
    public static let invalidURL = Self("invalidURL")
    /// A response that does not tell the server's time as asked (no usable header, a nonce that does
    /// not match, a cached response): the clock is unchanged.
    public static let invalidResponse = Self("invalidResponse")
}
