#if NTS
import Foundation
import Testing
import TimeSync
import TimeSyncWire
import TimeSyncServerSupport
import TimeSyncFixtures
import TimeSyncTesting
@testable import TimeSyncNTS

/// NTS over NTP, sans-IO with the real cipher: the client's request through the server's whole request
/// policy (`NTPServerResponder` with `NTSServerKeys`) and back, and every way a reply can be spoiled.
@Suite struct NTSProtocolTests {
    /// A key exchange's outcome without TLS: keys and eight cookies from a server key ring.
    struct Session {
        let keys: NTSServerKeys
        var association: NTSAssociation
        let timeBase = ManualTimeBase()

        init(keys: NTSServerKeys? = nil) throws {
            let keys = try keys ?? NTSServerKeys()
            let c2s = [UInt8](repeating: 0xC2, count: 32)
            let s2c = [UInt8](repeating: 0x52, count: 32)
            let cookies = (0..<8).map { _ in keys.makeCookie(clientToServer: c2s, serverToClient: s2c) }
            self.keys = keys
            association = NTSAssociation(
                response: NTSKEResponse(algorithm: 15, cookies: cookies), keyExchangeHost: "127.0.0.1",
                clientToServer: try AESSIVCMAC256(key: c2s), serverToClient: try AESSIVCMAC256(key: s2c),
                established: timeBase.monotonicNow())
        }

        /// A request spending the next cookie.
        mutating func request(seed: UInt64 = 1) throws -> NTSClientRequest {
            var generator = SeededGenerator(seed: seed)
            let taken = association.takeCookie()
            let cookie = try #require(taken)
            let ntp = NTPClientRequest(wallTime: timeBase.wallNow(), monotonicTime: timeBase.monotonicNow(), using: &generator)
            return NTSClientRequest(
                ntp: ntp, cookie: cookie, placeholders: association.placeholdersWanted, cipher: association.clientToServer,
                using: &generator)
        }

        /// When a reply arrives: 3 ms after the request left (the server takes 1 ms to receive it).
        var arrival: MonotonicInstant { timeBase.monotonicNow().advanced(by: .milliseconds(3)) }

        /// The server's action on `bytes`, 1 ms after they were sent.
        func serve(_ bytes: [UInt8], authenticator: (any NTPRequestAuthenticator)? = nil) -> ServedDatagram {
            let received = timeBase.wallNow().advanced(by: .milliseconds(1))
            return NTPServerResponder.serve(
                bytes, policy: NTPServerPolicy(stratum: 2), receivedAt: received, admit: { .admit }, minimumPoll: 0,
                authenticator: authenticator ?? keys, transmitAt: { received.advanced(by: .microseconds(20)) })
        }
    }

    @Test func aRequestIsAnsweredAuthenticatedWithAFreshCookiePerCookieAndPlaceholder() throws {
        var session = try Session()
        var request = try session.request()
        #expect(session.association.cookies.count == 7, "the cookie sent left the jar")
        #expect(request.bytes.count == 48 + 36 + (4 + 104) + 40, "one cookie, no placeholder: the jar is 7 of 8 after it")
        guard case .authenticatedReply(let reply) = session.serve(request.bytes) else {
            Issue.record("not answered authenticated")
            return
        }
        let bytes = reply.encoded()
        #expect(bytes.count == request.bytes.count, "a reply as long as its request, no longer")
        let (accepted, cookies) = try request.accept(
            bytes, receivedAt: session.arrival, cipher: session.association.serverToClient)
        #expect(cookies.count == 1 && cookies.allSatisfy { $0.count == NTSServerKeys.cookieLength })
        #expect(accepted.packet.stratum == 2)
        session.association.add(cookies: cookies)
        #expect(session.association.cookies.count == 8)
        #expect(Set(session.association.cookies).count == 8, "every cookie is new")
    }

    @Test func placeholdersBringTheJarBackToEight() throws {
        var session = try Session()
        for _ in 0..<5 { _ = session.association.takeCookie() }
        var request = try session.request()
        #expect(session.association.placeholdersWanted == 5)
        guard case .authenticatedReply(let reply) = session.serve(request.bytes) else {
            Issue.record("not answered")
            return
        }
        let (_, cookies) = try request.accept(reply.encoded(), receivedAt: session.arrival, cipher: session.association.serverToClient)
        #expect(cookies.count == 6)
        session.association.add(cookies: cookies)
        #expect(session.association.cookies.count == 8)
    }

    /// One flipped bit anywhere in the reply: dropped, never a sample, and the request still waits
    /// for its genuine reply, which is then accepted.
    @Test func anAlteredReplyIsDroppedAndTheGenuineOneStillAccepted() throws {
        var session = try Session()
        var request = try session.request()
        guard case .authenticatedReply(let reply) = session.serve(request.bytes) else {
            Issue.record("not answered")
            return
        }
        let genuine = reply.encoded()
        var outcomes: [String: Int] = [:]
        for index in genuine.indices {
            var altered = genuine
            altered[index] ^= 0x10
            do {
                _ = try request.accept(altered, receivedAt: session.arrival, cipher: session.association.serverToClient)
                Issue.record("byte \(index) altered and accepted")
            } catch {
                #expect(error.isDroppedDatagram, "byte \(index): \(error)")
                outcomes[error.reason, default: 0] += 1
            }
        }
        #expect(outcomes["authenticationFailed", default: 0] > 100)
        #expect(request.ntp.isAnswered == false)
        #expect(throws: Never.self) {
            _ = try request.accept(genuine, receivedAt: session.arrival, cipher: session.association.serverToClient)
        }
    }

    @Test func strippedForgedReplayedAndStrayRepliesAreDropped() throws {
        var session = try Session()
        var first = try session.request(seed: 1)
        guard case .authenticatedReply(let old) = session.serve(first.bytes) else {
            Issue.record("not answered")
            return
        }
        _ = try first.accept(old.encoded(), receivedAt: session.arrival, cipher: session.association.serverToClient)
        var request = try session.request(seed: 2)
        guard case .authenticatedReply(let reply) = session.serve(request.bytes) else {
            Issue.record("not answered")
            return
        }
        let s2c = session.association.serverToClient
        let now = session.arrival
        // Replayed: an old genuine reply answers another request.
        expectThrows(NTSReplyError(ntp: .originMismatch)) { _ = try request.accept(old.encoded(), receivedAt: now, cipher: s2c) }
        // Stripped of its extension fields: a bare NTP reply with the right origin.
        var stripped = reply
        stripped.extensionFields = []
        expectThrows(NTSReplyError.unauthenticated) { _ = try request.accept(stripped.encoded(), receivedAt: now, cipher: s2c) }
        // Without the Authenticator.
        var unsigned = reply
        unsigned.extensionFields.removeLast()
        expectThrows(NTSReplyError.unauthenticated) { _ = try request.accept(unsigned.encoded(), receivedAt: now, cipher: s2c) }
        // Forged by someone who saw the request: right origin and identifier, a key of their own.
        var forged = reply
        forged.transmitTimestamp = NTPTimestamp(session.timeBase.wallNow().advanced(by: .seconds(3600)))
        let forger = try AESSIVCMAC256(key: [UInt8](repeating: 0x66, count: 32))
        forged = NTSServerRequestFake.reseal(forged, with: forger)
        expectThrows(NTSReplyError.authenticationFailed) { _ = try request.accept(forged.encoded(), receivedAt: now, cipher: s2c) }
        // Another request's identifier.
        var stray = reply
        stray.extensionFields[0].value = [UInt8](repeating: 0, count: 32)
        expectThrows(NTSReplyError.uniqueIdentifierMismatch) { _ = try request.accept(stray.encoded(), receivedAt: now, cipher: s2c) }
        // An unauthenticated field after the Authenticator.
        var appended = reply
        appended.extensionFields.append(NTPExtensionField(type: NTSExtensionFieldType.cookie, value: [UInt8](repeating: 1, count: 100)))
        expectThrows(NTSReplyError.unauthenticated) { _ = try request.accept(appended.encoded(), receivedAt: now, cipher: s2c) }
        #expect(request.ntp.isAnswered == false, "none of them answered the request")
        let (accepted, _) = try request.accept(reply.encoded(), receivedAt: now, cipher: s2c)
        #expect(accepted.packet.transmitTimestamp == reply.transmitTimestamp)
        expectThrows(NTSReplyError(ntp: .duplicate)) { _ = try request.accept(reply.encoded(), receivedAt: now, cipher: s2c) }
    }

    /// The server drops a request whose Authenticator does not verify, and answers a cookie it cannot
    /// open with an NTS NAK, which the client recognizes (and the association is then spent).
    @Test func theServerDropsForgedRequestsAndNAKsUnknownCookies() throws {
        var session = try Session()
        let request = try session.request()
        var altered = request.bytes
        altered[altered.count - 1] ^= 1
        #expect(session.serve(altered) == .drop(.unauthenticated))
        let other = try NTSServerKeys()
        guard case .negativeAcknowledgment(let nak) = session.serve(request.bytes, authenticator: other) else {
            Issue.record("no NAK for a cookie under an unknown key")
            return
        }
        #expect(nak.referenceID == .ntsNegativeAcknowledgment && nak.stratum == 0)
        var pending = request
        expectThrows(NTSReplyError.negativeAcknowledgment) {
            _ = try pending.accept(nak.encoded(), receivedAt: session.arrival, cipher: session.association.serverToClient)
        }
        session.association.rejected()
        #expect(!session.association.isUsable(at: session.timeBase.monotonicNow(), maximumAge: .seconds(3600)))
        // Malformed NTS fields: two cookies.
        var packet = try NTPPacket(decoding: request.bytes)
        packet.extensionFields.insert(packet.extensionFields[1], at: 1)
        #expect(session.serve(packet.encoded()) == .drop(.malformedNTS))
        // No NTS field: plain SNTP.
        var plain = packet
        plain.extensionFields = []
        guard case .reply(let reply) = session.serve(plain.encoded()) else {
            Issue.record("a plain request is answered plainly")
            return
        }
        #expect(reply.extensionFields.isEmpty)
    }

    @Test func anAssociationIsSpentWhenCookiesRunOutOrItAges() throws {
        var session = try Session()
        let start = session.timeBase.monotonicNow()
        #expect(session.association.isUsable(at: start, maximumAge: .seconds(60)))
        #expect(!session.association.isUsable(at: start.advanced(by: .seconds(60)), maximumAge: .seconds(60)))
        var sent: Set<[UInt8]> = []
        while let cookie = session.association.takeCookie() { sent.insert(cookie) }
        #expect(sent.count == 8)
        #expect(!session.association.isUsable(at: start, maximumAge: .seconds(60)))
        session.association.add(cookies: [[], [UInt8](repeating: 1, count: 500)] + (0..<10).map { [UInt8](repeating: UInt8($0), count: 100) })
        #expect(session.association.cookies.count == 8, "empty and oversized cookies left out, at most eight kept")
    }
}

/// Seals a reply again under another key, as a forger who saw the request could.
enum NTSServerRequestFake {
    static func reseal(_ reply: NTPPacket, with cipher: AESSIVCMAC256) -> NTPPacket {
        var packet = reply
        packet.extensionFields.removeLast()
        let nonce = [UInt8](repeating: 5, count: 16)
        let plaintext = NTSFields.encode([NTPExtensionField(type: NTSExtensionFieldType.cookie, value: [UInt8](repeating: 9, count: 104))])
        packet.extensionFields.append(NTSFields.authenticator(nonce: nonce, ciphertext: cipher.seal(plaintext, nonce: nonce, associatedData: packet.encoded())))
        return packet
    }
}
#endif
