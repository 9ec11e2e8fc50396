import Crypto
import Testing
import TimeSync
import TimeSyncWire
import TimeSyncServerSupport
import TimeSyncFixtures
import TimeSyncTesting

/// Our server's logic against our client's verification, every version, one by one and in batches;
/// and the requests a server must not answer.
@Suite struct RoughtimeResponderTests {
    static let longTermKey = try! Curve25519.Signing.PrivateKey(rawRepresentation: [UInt8](repeating: 7, count: 32))
    static let publicKey = Array(longTermKey.publicKey.rawRepresentation)
    static let now = UnixTime(seconds: 1_790_000_000, nanoseconds: 600_000_000)

    static func responder(versions: [RoughtimeVersion] = RoughtimeVersion.served) throws -> RoughtimeResponder {
        try RoughtimeResponder(longTermKey: longTermKey, validity: 1_789_990_000...1_790_090_000, versions: versions)
    }

    static func request(_ versions: [RoughtimeVersion], seed: UInt64 = 1, key: [UInt8]? = publicKey) -> RoughtimeRequest {
        var generator = SeededGenerator(seed: seed)
        return RoughtimeRequest(versions: versions, nonce: generator.bytes(32), serverKey: key)
    }

    static func dropReason(_ result: Result<[UInt8], RoughtimeDropReason>) -> RoughtimeDropReason? {
        if case .failure(let reason) = result { reason } else { nil }
    }

    @Test(arguments: [[RoughtimeVersion.rfc], [.draft14], [.draft11], [.draft08], [.rfc, .draft14, .draft11]])
    func eachVersionRoundTrips(offer: [RoughtimeVersion]) throws {
        let request = Self.request(offer)
        #expect(request.packet.count == RoughtimeRequest.minimumLength)
        let replies = try Self.responder().respond(to: [request.packet], now: Self.now)
        let reply = try replies[0].get()
        #expect(reply.count <= request.packet.count)
        let response = try RoughtimeResponse.verify(reply, request: request, publicKey: Self.publicKey)
        #expect(response.version == offer.min())
        #expect(response.midpoint == UnixTime(seconds: 1_790_000_001))
        #expect(response.radius == .seconds(3))
        #expect(response.validity == 1_789_990_000...1_790_090_000)
    }

    @Test(arguments: [1, 5, 64]) func aBatchIsSignedOnceAndEveryReplyVerifies(count: Int) throws {
        let requests = (0..<count).map { Self.request([.rfc, .draft14], seed: UInt64($0)) }
        let replies = try Self.responder().respond(to: requests.map(\.packet), now: Self.now).map { try $0.get() }
        var signatures: Set<[UInt8]> = []
        for (request, reply) in zip(requests, replies) {
            _ = try RoughtimeResponse.verify(reply, request: request, publicKey: Self.publicKey)
            let message = try RoughtimeMessage(decoding: try RoughtimePacket.unframe(reply[...]))
            signatures.insert(Array(try message.value(.signature)))
            var depth = 0
            while 1 << depth < count { depth += 1 }
            #expect(try message.value(.path).count == 32 * depth)
        }
        #expect(signatures.count == 1)
    }

    @Test func aBatchOfTwoVersionsIsSignedOncePerVersion() throws {
        let requests = [Self.request([.rfc], seed: 1), Self.request([.draft11], seed: 2), Self.request([.rfc], seed: 3)]
        let replies = try Self.responder().respond(to: requests.map(\.packet), now: Self.now).map { try $0.get() }
        let versions = try zip(requests, replies).map { try RoughtimeResponse.verify($1, request: $0, publicKey: Self.publicKey).version }
        #expect(versions == [.rfc, .draft11, .rfc])
    }

    @Test func requestsTheServerMustNotAnswer() throws {
        let responder = try Self.responder(versions: [.rfc, .draft14])
        var short = Self.request([.rfc]).packet
        short.removeLast(4)
        var generator = SeededGenerator(seed: 9)
        let google = RoughtimeRequest(versions: [.google], nonce: generator.bytes(64))
        let otherKey = Array(Curve25519.Signing.PrivateKey().publicKey.rawRepresentation)
        let results = responder.respond(
            to: [short, Self.request([.draft11]).packet, google.packet, Self.request([.rfc], key: otherKey).packet, [UInt8](repeating: 0, count: 1024)],
            now: Self.now)
        #expect(results.map(Self.dropReason) == [
            .tooShort, .unsupportedVersion, .unsupportedVersion, .otherServer, .malformed,
        ])
        let expired = responder.respond(to: [Self.request([.rfc]).packet], now: UnixTime(seconds: 1_800_000_000))
        #expect(expired.map(Self.dropReason) == [.delegationExpired])
    }

    /// A client that offered version 1 and 0x8000000c, whose list someone cut to 0x8000000c on the
    /// way: the server signed that it speaks version 1 too.
    @Test func aDowngradedVersionListIsCaught() throws {
        let offered = Self.request([.rfc, .draft14], seed: 4)
        let cut = Self.request([.draft14], seed: 4)
        let reply = try Self.responder().respond(to: [cut.packet], now: Self.now)[0].get()
        expectThrows(RoughtimeError.downgrade) { try RoughtimeResponse.verify(reply, request: offered, publicKey: Self.publicKey) }
    }

    @Test func aReplyToAnotherRequestOrInAVersionNotOfferedIsRefused() throws {
        let first = Self.request([.rfc], seed: 5)
        let second = Self.request([.rfc], seed: 6)
        let reply = try Self.responder().respond(to: [first.packet], now: Self.now)[0].get()
        expectThrows(RoughtimeError.nonceMismatch) { try RoughtimeResponse.verify(reply, request: second, publicKey: Self.publicKey) }
        let draft = Self.request([.draft11], seed: 5)
        expectThrows(RoughtimeError.versionNotOffered) { try RoughtimeResponse.verify(reply, request: draft, publicKey: Self.publicKey) }
        // Pinned to another key: SRV names it, and this server refuses the request.
        let otherKey = Array(Curve25519.Signing.PrivateKey().publicKey.rawRepresentation)
        expectThrows(RoughtimeError.serverMismatch) { try RoughtimeResponse.verify(reply, request: first, publicKey: otherKey) }
    }

    @Test func theOnlineKeyIsReplacedBeforeItsWindowEnds() throws {
        var responder = try Self.responder()
        let before = responder.delegation.publicKey
        try responder.delegate(validity: 1_790_090_000...1_790_190_000)
        #expect(responder.delegation.publicKey != before)
        let request = Self.request([.rfc])
        let reply = try responder.respond(to: [request.packet], now: UnixTime(seconds: 1_790_100_000))[0].get()
        let response = try RoughtimeResponse.verify(reply, request: request, publicKey: Self.publicKey)
        #expect(response.delegatedKey == responder.delegation.publicKey)
    }

    /// The renewal policy a server runs before each batch: nothing while the window has more than
    /// a quarter of its lifetime left; a new key when it has less, or when the clock went back
    /// before the window's start.
    @Test func renewalDelegatesANewKeyOnlyNearTheWindowsEndOrBeforeItsStart() throws {
        let lifetime = Duration.seconds(86_400)
        let start = UnixTime(seconds: 1_790_000_000)
        var responder = try RoughtimeResponder(
            longTermKey: Self.longTermKey, validity: RoughtimeResponder.window(now: start, lifetime: lifetime))
        #expect(responder.delegation.validity == 1_789_996_400...1_790_086_400)
        let first = responder.delegation.publicKey
        #expect(try !responder.renewDelegation(now: start, lifetime: lifetime))
        #expect(try !responder.renewDelegation(now: UnixTime(seconds: 1_790_064_799), lifetime: lifetime))
        #expect(responder.delegation.publicKey == first)

        let late = UnixTime(seconds: 1_790_064_800)  // 21,600 s (a quarter) before MAXT
        #expect(try responder.renewDelegation(now: late, lifetime: lifetime))
        #expect(responder.delegation.publicKey != first)
        #expect(responder.delegation.validity == 1_790_061_200...1_790_151_200)
        let request = Self.request([.rfc])
        let reply = try responder.respond(to: [request.packet], now: late)[0].get()
        #expect(try RoughtimeResponse.verify(reply, request: request, publicKey: Self.publicKey).validity == responder.delegation.validity)

        let steppedBack = UnixTime(seconds: 1_790_000_000)  // before the new MINT
        #expect(try responder.renewDelegation(now: steppedBack, lifetime: lifetime))
        #expect(responder.delegation.validity == 1_789_996_400...1_790_086_400)
        #expect(RoughtimeResponder.window(now: UnixTime(seconds: -5), lifetime: .seconds(1)) == 0...60)
        #expect(RoughtimeResponder.window(now: UnixTime(nanoseconds: .max), lifetime: .seconds(Int64.max)).upperBound == UInt64(Int64.max) + 9_223_372_036)
    }

    @Test func aChainOfHonestServersProvesNothingAndALiarIsCaught() throws {
        let honest = try Self.responder()
        let liarKey = try Curve25519.Signing.PrivateKey(rawRepresentation: [UInt8](repeating: 9, count: 32))
        let liar = try RoughtimeResponder(longTermKey: liarKey, validity: 1_780_000_000...1_800_000_000)
        var chain = RoughtimeChain()
        var generator = SeededGenerator(seed: 11)
        let steps: [(RoughtimeResponder, UnixTime)] = [
            (honest, Self.now), (liar, Self.now.advanced(by: .seconds(3600))), (honest, Self.now.advanced(by: .seconds(1))),
        ]
        for (server, time) in steps {
            let blind = generator.bytes(32)
            let request = RoughtimeRequest(versions: [.rfc], nonce: chain.nonce(blind: blind), serverKey: server.publicKey)
            let reply = try server.respond(to: [request.packet], now: time)[0].get()
            let response = try RoughtimeResponse.verify(reply, request: request, publicKey: server.publicKey)
            chain.append(publicKey: server.publicKey, blind: blind, request: request, response: response)
            if chain.links.count == 1 { #expect(chain.violations.isEmpty) }
        }
        #expect(chain.violations.map { [$0.earlier, $0.later] } == [[1, 2]])
        let verdict = try RoughtimeReport(json: chain.report.json()).verify()
        #expect(verdict.violations == chain.violations)
        #expect(verdict.responses.map(\.midpointValue) == chain.links.map(\.response.midpointValue))
    }
}
