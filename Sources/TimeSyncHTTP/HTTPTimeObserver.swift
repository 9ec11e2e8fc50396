import HTTPTypes
import TimeSync
import TimeSyncWire

/// Turns any HTTP response into a clock sample: the passive entry point.
///
/// Record the monotonic instant just before sending a request and just after its response head
/// arrives, whatever HTTP client you use, and hand both with the response's status and headers to
/// `observe(status:headers:requestSent:responseReceived:nonce:)`. Ordinary API traffic then
/// calibrates a `ServerClock` at no extra cost.
///
/// Stale time is rejected rather than used: a response with `Age` above zero came from a cache; a
/// `304 Not Modified` may carry a stored time, so it counts only when it echoes the request's nonce;
/// and when a nonce was sent, the `TimeSync-Time` header must echo it.
public struct HTTPTimeObserver: Sendable {
    /// The source name given to samples (usually the server's `host[:port]`).
    public var source: String
    /// Where responses carry the server's time, tried in order: the first a response carries is used.
    public var schemes: [HTTPTimeScheme]
    /// The clocks: the wall clock expands RFC 850 two-digit years.
    public var timeBase: any TimeBase

    /// Creates an observer that reads the server's time by the given schemes.
    /// - Parameters:
    ///   - source: The source name for samples; must not be empty.
    ///   - schemes: Where responses carry the server's time, tried in order (for example
    ///     `[.unixTimestamp(header: "Response-Timestamp", unit: .milliseconds(1))]`).
    ///   - timeBase: The clocks (the wall clock is read only to expand RFC 850 years).
    public init(source: String, schemes: [HTTPTimeScheme] = [.timeSyncTime, .date], timeBase: (any TimeBase)? = nil) {
        let timeBase = timeBase ?? SystemTimeBase()
        self.source = source
        self.schemes = schemes
        self.timeBase = timeBase
    }

    /// Creates an observer for `TimeSync-Time` and `Date`.
    /// - Parameters:
    ///   - source: The source name for samples; must not be empty.
    ///   - policy: Which headers to use; by default `TimeSync-Time` when present, else `Date`.
    ///   - timeBase: The clocks (the wall clock is read only to expand RFC 850 years).
    package init(source: String, policy: HTTPTimeScheme.Preference, timeBase: any TimeBase) {
        self.init(source: source, schemes: HTTPTimeScheme.schemes(for: policy), timeBase: timeBase)
    }

    /// Takes a sample from a response given as name/value pairs (any HTTP client's headers).
    ///
    /// - Parameters:
    ///   - status: The response's status code.
    ///   - headers: The response's header fields; names compare case-insensitively.
    ///   - requestSent: The monotonic instant just before the request was sent (t1).
    ///   - responseReceived: The monotonic instant just after the response head arrived (t4).
    ///   - nonce: The nonce sent in the request's `TimeSync-Nonce` header, if any.
    /// - Returns: The sample and the header it came from.
    /// - Throws: `HTTPTimeError` when the response is stale, replayed, lacks a usable header or its
    ///   times are malformed or inconsistent.
    package func observe(
        status: Int, headers: some Sequence<(name: String, value: String)>,
        requestSent: MonotonicInstant, responseReceived: MonotonicInstant, nonce: String? = nil
    ) throws(HTTPTimeError) -> HTTPTimeObservation {
        let fields = Array(headers)
        func values(_ name: String) -> [String] { fields.filter { $0.name.caseInsensitiveEquals(name) }.map(\.value) }
        try Self.rejectCached(values("Age"))
        var lastMissing = HTTPTimeError(.missingTimestamp, detail: "no scheme configured")
        for scheme in schemes {
            switch scheme {
            case .timeSyncTime:
                let timeValues = values(HTTPTimeHeader.name)
                guard !timeValues.isEmpty else {
                    lastMissing = HTTPTimeError(.missingTimeHeader)
                    continue
                }
                let header = try Self.parseTimeHeader(timeValues)
                if let nonce {
                    guard let echoed = header.nonce else { throw HTTPTimeError(.nonceMissing) }
                    guard echoed == nonce else { throw HTTPTimeError(.nonceMismatch) }
                } else if status == 304 {
                    throw HTTPTimeError(.notModifiedWithoutFreshDate, detail: "no nonce was sent")
                }
                let sample = try Self.sample { () throws(SampleError) -> OffsetSample in
                    try OffsetSample.exchange(
                        source: source, requestSent: requestSent, serverReceive: header.serverReceive,
                        serverTransmit: header.serverTransmit, responseReceived: responseReceived,
                        serverUncertainty: header.uncertainty ?? .zero)
                }
                return HTTPTimeObservation(sample: sample, scheme: .timeHeader)
            case .date:
                // A 304 may carry the Date the cache stored with the response; nothing proves it fresh.
                guard status != 304 else { throw HTTPTimeError(.notModifiedWithoutFreshDate) }
                let dateValues = values("Date")
                guard !dateValues.isEmpty else {
                    lastMissing = HTTPTimeError(.missingDate)
                    continue
                }
                let serverTime = try Self.parseDates(dateValues, reference: timeBase.wallNow())
                // A leap second (`:60`) spans two seconds of Unix time: its interval says so.
                let sample = try Self.sample { () throws(SampleError) -> OffsetSample in
                    try OffsetSample.timestamp(
                        source: source, serverTime: serverTime.start, resolution: serverTime.length,
                        requestSent: requestSent, responseReceived: responseReceived)
                }
                return HTTPTimeObservation(sample: sample, scheme: .date)
            case .unixTimestamp(let name, let unit):
                let stamps = values(name)
                guard !stamps.isEmpty else {
                    lastMissing = HTTPTimeError(.missingTimestamp, detail: name)
                    continue
                }
                guard status != 304 else { throw HTTPTimeError(.notModifiedWithoutFreshDate, detail: name) }
                let (time, resolution) = try HTTPTimeScheme.parseUnixTimestamp(stamps[0], unit: unit)
                for other in stamps.dropFirst() {
                    guard try HTTPTimeScheme.parseUnixTimestamp(other, unit: unit) == (time, resolution) else {
                        throw HTTPTimeError(.malformedTimestamp, detail: "conflicting \(name) fields")
                    }
                }
                let sample = try Self.sample { () throws(SampleError) -> OffsetSample in
                    try OffsetSample.timestamp(
                        source: source, serverTime: time, resolution: .nanoseconds(resolution), requestSent: requestSent,
                        responseReceived: responseReceived)
                }
                return HTTPTimeObservation(sample: sample, scheme: .unixTimestamp)
            case .custom(let name, let read):
                let reading: (serverTime: UnixTime, resolution: Duration, processingTime: Duration?)
                do {
                    reading = try read(status, fields)
                } catch let error as HTTPTimeError {
                    throw error
                } catch {
                    throw HTTPTimeError(.missingTimestamp, detail: "\(name): \(error)")
                }
                guard status != 304 else { throw HTTPTimeError(.notModifiedWithoutFreshDate, detail: name) }
                let sample = try HTTPExchangeInstants(requestSent: requestSent, responseReceived: responseReceived).sample(
                    source: source, serverTime: reading.serverTime, processingTime: reading.processingTime, resolution: reading.resolution)
                return HTTPTimeObservation(sample: sample, scheme: .custom)
            }
        }
        throw lastMissing
    }

    /// Builds a sample, a `SampleError` becoming `HTTPTimeError.inconsistentTimestamps`.
    private static func sample(_ build: () throws(SampleError) -> OffsetSample) throws(HTTPTimeError) -> OffsetSample {
        do {
            return try build()
        } catch {
            throw HTTPTimeError(.inconsistentTimestamps, underlying: error)
        }
    }

    /// Parses the `Date` field lines of one response; copies must name the same second.
    private static func parseDates(_ dateValues: [String], reference: UnixTime) throws(HTTPTimeError) -> (start: UnixTime, length: Duration) {
        do {
            let serverTime = try HTTPDate.interval(dateValues[0], reference: reference)
            for other in dateValues.dropFirst() {
                guard try HTTPDate.interval(other, reference: reference) == serverTime else {
                    throw HTTPTimeError(.conflictingDates)
                }
            }
            return serverTime
        } catch let error as HTTPDateError {
            throw HTTPTimeError(.invalidDate, underlying: error)
        } catch let error as HTTPTimeError {
            throw error
        } catch {
            throw HTTPTimeError(.invalidDate)
        }
    }

    /// Parses the `TimeSync-Time` field lines of one response.
    ///
    /// Each field line is one header; a client or proxy may also have joined several into one line
    /// with `, ` (RFC 9110 §5.3), which shows as a member name repeating. Identical copies are one
    /// header; copies that differ are `HTTPTimeError.conflictingTimeHeaders`: which one the server
    /// meant cannot be known, and a structured-field dictionary would silently keep the last.
    static func parseTimeHeader(_ fieldLines: [String]) throws(HTTPTimeError) -> HTTPTimeHeader {
        var parsed: HTTPTimeHeader?
        for line in fieldLines {
            for copy in splitCopies(line) {
                let header = try HTTPTimeHeader(parsing: copy)
                if let parsed, parsed != header {
                    throw HTTPTimeError(.conflictingTimeHeaders, detail: "\(fieldLines.count) field line(s)")
                }
                parsed = header
            }
        }
        guard let parsed else { throw HTTPTimeError(.malformedTimeHeader, detail: "empty") }
        return parsed
    }

    /// Splits a dictionary field value into the copies joined in it: a new copy starts where a member
    /// name repeats. Commas inside strings do not split.
    static func splitCopies(_ value: String) -> [String] {
        var members: [Substring] = []
        var start = value.startIndex
        var inString = false
        var escaped = false
        var index = value.startIndex
        while index < value.endIndex {
            let character = value[index]
            if inString {
                if escaped { escaped = false } else if character == "\\" { escaped = true } else if character == "\"" { inString = false }
            } else if character == "\"" {
                inString = true
            } else if character == "," {
                members.append(value[start..<index])
                start = value.index(after: index)
            }
            index = value.index(after: index)
        }
        members.append(value[start...])
        var copies: [[Substring]] = [[]]
        var names: Set<Substring> = []
        for member in members {
            let trimmed = member.drop { $0 == " " || $0 == "\t" }
            let name = trimmed.prefix { $0 != "=" && $0 != ";" && $0 != " " && $0 != "\t" }
            if names.contains(name) {
                copies.append([])
                names = []
            }
            names.insert(name)
            copies[copies.count - 1].append(member)
        }
        return copies.map { $0.joined(separator: ",") }
    }

    /// Takes a sample from a response given as `HTTPFields` (swift-http-types, used by Hummingbird,
    /// AsyncHTTPClient's newer API and swift-openapi).
    /// - Parameters:
    ///   - status: The response's status code.
    ///   - headers: The response's header fields.
    ///   - requestSent: The monotonic instant just before the request was sent (t1).
    ///   - responseReceived: The monotonic instant just after the response head arrived (t4).
    ///   - nonce: The nonce sent in the request's `TimeSync-Nonce` header, if any.
    /// - Returns: The sample and the header it came from.
    /// - Throws: `HTTPTimeError` as `observe(status:headers:requestSent:responseReceived:nonce:)`.
    package func observe(
        status: Int, headers: HTTPFields,
        requestSent: MonotonicInstant, responseReceived: MonotonicInstant, nonce: String? = nil
    ) throws(HTTPTimeError) -> HTTPTimeObservation {
        try observe(
            status: status, headers: headers.pairs,
            requestSent: requestSent, responseReceived: responseReceived, nonce: nonce)
    }

    /// Rejects a response a cache served: `Age` (RFC 9111 §5.1) above zero or unreadable.
    static func rejectCached(_ ageValues: [String]) throws(HTTPTimeError) {
        for value in ageValues {
            let trimmed = value.trimmingOWS()
            guard !trimmed.isEmpty, trimmed.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
                throw HTTPTimeError(.cachedResponse, detail: "unreadable Age")
            }
            guard trimmed.utf8.allSatisfy({ $0 == UInt8(ascii: "0") }) else {
                throw HTTPTimeError(.cachedResponse, detail: "Age: \(trimmed)")
            }
        }
    }
}

extension HTTPFields {
    /// The fields as name/value pairs, what ``HTTPTimeObserver`` reads.
    package var pairs: [(name: String, value: String)] { map { (name: $0.name.rawName, value: $0.value) } }
}

extension String {
    func caseInsensitiveEquals(_ other: String) -> Bool {
        utf8.count == other.utf8.count
            && zip(utf8, other.utf8).allSatisfy { a, b in
                (a >= 65 && a <= 90 ? a + 32 : a) == (b >= 65 && b <= 90 ? b + 32 : b)
            }
    }

    func trimmingOWS() -> Substring {
        let isOWS: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let start = firstIndex(where: { !isOWS($0) }), let end = lastIndex(where: { !isOWS($0) }) else { return "" }
        return self[start...end]
    }
}
