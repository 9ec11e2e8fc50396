import Foundation

/// Queries to several Roughtime servers chained so that their order is provable, and the proof of
/// misbehaviour that comes out when two signed intervals cannot both be true.
///
/// Each nonce after the first is `H(previous reply ‖ rand)`: the reply could not have been asked for
/// before the previous one was received. If an earlier reply's interval lies wholly after a later
/// reply's interval, one of the two servers lied, and the chain (requests, replies, keys, rands)
/// proves it to anyone (``RoughtimeReport``).
public struct RoughtimeChain: Sendable {
    /// One verified query of the chain.
    public struct Link: Sendable, Hashable {
        /// The server's long-term public key.
        public let publicKey: [UInt8]
        /// The random blind hashed with the previous reply into this nonce (`nil` for the first).
        public let rand: [UInt8]?
        /// The request as sent.
        public let request: RoughtimeRequest
        /// The verified reply.
        public let response: RoughtimeResponse
    }

    /// The queries so far, in order.
    public private(set) var links: [Link] = []

    /// An empty chain.
    public init() {}

    /// The nonce of the next request: `blind` itself for the first, `SHA-512(previous reply ‖ blind)`
    /// truncated to 32 bytes after.
    /// - Parameter blind: 32 fresh random bytes.
    public func nonce(blind: [UInt8]) -> [UInt8] {
        guard let previous = links.last else { return blind }
        return Self.chainedNonce(previous: previous.response.packet, rand: blind)
    }

    /// `SHA-512(previous ‖ rand)` truncated to 32 bytes.
    static func chainedNonce(previous: [UInt8], rand: [UInt8]) -> [UInt8] {
        RoughtimeMerkle.hash(nil, [previous[...], rand[...]], length: 32)
    }

    /// Adds a verified query whose nonce came from ``nonce(blind:)`` with `blind`.
    /// - Precondition: the request's nonce is that nonce.
    public mutating func append(publicKey: [UInt8], blind: [UInt8], request: RoughtimeRequest, response: RoughtimeResponse) {
        precondition(request.nonce == nonce(blind: blind), "the request uses the chain's nonce")
        links.append(Link(publicKey: publicKey, rand: links.isEmpty ? nil : blind, request: request, response: response))
    }

    /// Pairs (earlier, later) of links whose intervals contradict their order: the earlier reply's
    /// earliest time is after the later reply's latest.
    public var violations: [RoughtimeViolation] { RoughtimeViolation.find(links.map(\.response)) }

    /// The chain as a report anyone can verify.
    public var report: RoughtimeReport {
        RoughtimeReport(entries: links.map { RoughtimeReport.Entry(publicKey: $0.publicKey, rand: $0.rand, request: $0.request.packet, response: $0.response.packet) })
    }
}

/// Two replies of a chain that cannot both be true.
public struct RoughtimeViolation: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The earlier reply's position in the chain (from 0).
    public let earlier: Int
    /// The later reply's position.
    public let later: Int
    /// How far the earlier reply's earliest time lies after the later reply's latest.
    public let gap: Duration

    /// Every contradicting pair, earlier first.
    /// - Complexity: O(n²) in the chain's length (a handful of servers).
    static func find(_ responses: [RoughtimeResponse]) -> [RoughtimeViolation] {
        var found: [RoughtimeViolation] = []
        for later in responses.indices {
            for earlier in responses.indices where earlier < later {
                let earliest = responses[earlier].midpoint.nanoseconds.saturatingSubtract(responses[earlier].radius.nanosecondsClamped)
                let latest = responses[later].midpoint.nanoseconds.saturatingAdd(responses[later].radius.nanosecondsClamped)
                if earliest > latest {
                    found.append(RoughtimeViolation(earlier: earlier, later: later, gap: .nanoseconds(earliest.saturatingSubtract(latest))))
                }
            }
        }
        return found
    }

    public var description: String {
        "reply \(earlier + 1) says the time was at least \(gap.readable) later than reply \(later + 1), which came after it"
    }
}

/// A misbehaviour report: a chain of requests and replies with the servers' keys, in the JSON shape
/// RFC 10049 gives (`{"responses": [{"rand", "publicKey", "request", "response"}]}`, base64).
public struct RoughtimeReport: Sendable, Hashable {
    /// One query of the chain.
    public struct Entry: Sendable, Hashable {
        public var publicKey: [UInt8]
        public var rand: [UInt8]?
        public var request: [UInt8]
        public var response: [UInt8]
    }

    /// What a report shows once verified.
    public struct Verdict: Sendable, Hashable {
        /// Every reply, verified.
        public let responses: [RoughtimeResponse]
        /// The contradicting pairs: empty when the report proves nothing.
        public let violations: [RoughtimeViolation]
    }

    /// The queries, in order.
    public var entries: [Entry]

    /// A report of these queries.
    public init(entries: [Entry]) { self.entries = entries }

    /// The largest report read: far more than any chain of servers needs.
    public static let maximumSize = 1 << 20

    /// Reads a report's JSON.
    /// - Throws: ``RoughtimeError/invalidReport`` for JSON of another shape, base64 that does not
    ///   decode, or more than ``maximumSize`` bytes.
    public init(json: Data) throws(RoughtimeError) {
        guard json.count <= Self.maximumSize else { throw RoughtimeError(.invalidReport, "\(json.count) bytes (at most \(Self.maximumSize))") }
        let decoded: Wire
        do { decoded = try JSONDecoder().decode(Wire.self, from: json) } catch {
            throw RoughtimeError(.invalidReport, "not a report: \(error)")
        }
        guard !decoded.responses.isEmpty, decoded.responses.count <= 64 else {
            throw RoughtimeError(.invalidReport, "\(decoded.responses.count) responses (1 to 64)")
        }
        var entries: [Entry] = []
        for (index, item) in decoded.responses.enumerated() {
            func bytes(_ value: String?, _ name: String) throws(RoughtimeError) -> [UInt8]? {
                guard let value else { return nil }
                guard let data = Data(base64Encoded: value) else { throw RoughtimeError(.invalidReport, "response \(index + 1): \(name) is not base64") }
                return Array(data)
            }
            guard let key = try bytes(item.publicKey, "publicKey"), let request = try bytes(item.request, "request"),
                let response = try bytes(item.response, "response")
            else { throw RoughtimeError(.invalidReport, "response \(index + 1) lacks publicKey, request or response") }
            entries.append(Entry(publicKey: key, rand: try bytes(item.rand, "rand"), request: request, response: response))
        }
        self.entries = entries
    }

    /// The report as JSON.
    public func json() -> Data {
        let wire = Wire(
            responses: entries.map {
                Wire.Item(
                    rand: $0.rand.map { Data($0).base64EncodedString() }, publicKey: Data($0.publicKey).base64EncodedString(),
                    request: Data($0.request).base64EncodedString(), response: Data($0.response).base64EncodedString())
            })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(wire)) ?? Data()
    }

    /// Verifies every reply against its request and key, and every nonce after the first against
    /// the previous reply and its rand; then finds the replies that contradict their order.
    /// - Returns: The verified replies and the violations (none: the report proves nothing).
    /// - Throws: ``RoughtimeError`` for the first entry that does not verify, prefixed with its
    ///   position; ``RoughtimeError/invalidReport`` for a broken chain.
    public func verify() throws(RoughtimeError) -> Verdict {
        var responses: [RoughtimeResponse] = []
        for (index, entry) in entries.enumerated() {
            let name = "response \(index + 1)"
            do throws(RoughtimeError) {
                let request = try RoughtimeRequest(parsing: entry.request)
                if index > 0 {
                    guard let rand = entry.rand else { throw RoughtimeError(.invalidReport, "no rand to chain it to the previous reply") }
                    guard request.nonce == RoughtimeChain.chainedNonce(previous: entries[index - 1].response, rand: rand) else {
                        throw RoughtimeError(.invalidReport, "its nonce is not H(previous reply ‖ rand): the order is not proven")
                    }
                }
                responses.append(try RoughtimeResponse.verify(entry.response, request: request, publicKey: entry.publicKey))
            } catch {
                throw error.prefixed(name)
            }
        }
        return Verdict(responses: responses, violations: RoughtimeViolation.find(responses))
    }

    private struct Wire: Codable {
        struct Item: Codable {
            var rand: String?
            var publicKey: String?
            var request: String?
            var response: String?
        }
        var responses: [Item]
    }
}
