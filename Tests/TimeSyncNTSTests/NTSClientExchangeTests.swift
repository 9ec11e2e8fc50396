#if NTS
import Testing
import TimeSync
import TimeSyncWire
import TimeSyncFixtures
import TimeSyncTesting
@testable import TimeSyncNTS

/// The NTS exchange as a state machine: it spends a cookie, drops what does not authenticate, keeps
/// the cookies an authenticated reply brings, and spends the association after a NAK.
@Suite struct NTSClientExchangeTests {
    @Test func aForgedDatagramIsDroppedAndTheAuthenticatedReplyBringsACookie() throws {
        let session = try NTSProtocolTests.Session()
        var exchange = try NTSClientExchange(association: session.association, limits: .init(), timeout: .seconds(1))
        #expect(exchange.association.cookies.count == 7, "the cookie to send left the jar when the exchange was made")
        let now = session.timeBase.monotonicNow()
        let (datagram, deadline) = exchange.start(at: now, wallTime: session.timeBase.wallNow())
        #expect(deadline == now.advanced(by: .seconds(1)))
        guard case .authenticatedReply(let reply) = session.serve(datagram) else {
            Issue.record("not answered authenticated")
            return
        }
        var forged = reply.encoded()
        forged[forged.count - 1] ^= 1
        guard case .listen(nil) = exchange.receive(forged, at: session.arrival) else {
            Issue.record("a forged reply ended the exchange")
            return
        }
        #expect(exchange.dropped.map(\.code) == [.authenticationFailed])
        guard case .done(let accepted) = exchange.receive(reply.encoded(), at: session.arrival) else {
            Issue.record("the authenticated reply was not taken")
            return
        }
        #expect(accepted.packet.stratum == 2)
        #expect(exchange.association.cookies.count == 8)
    }

    @Test func aNAKWithNoAuthenticatedReplySpendsTheAssociation() throws {
        let session = try NTSProtocolTests.Session()
        var exchange = try NTSClientExchange(association: session.association, limits: .init(), timeout: .seconds(1))
        let (datagram, deadline) = exchange.start(at: session.timeBase.monotonicNow(), wallTime: session.timeBase.wallNow())
        guard case .negativeAcknowledgment(let nak) = session.serve(datagram, authenticator: try NTSServerKeys()) else {
            Issue.record("no NAK for a cookie under an unknown key")
            return
        }
        guard case .listen(nil) = exchange.receive(nak.encoded(), at: session.arrival) else {
            Issue.record("an unauthenticated NAK ended the exchange at once")
            return
        }
        guard case .failed(let error) = exchange.finish(at: deadline) else {
            Issue.record("the NAK was not the answer")
            return
        }
        #expect((error as? NTSReplyError)?.code == .negativeAcknowledgment)
        #expect(!exchange.association.isUsable(at: deadline, maximumAge: .seconds(3600)))
    }

    @Test func anAssociationWithoutCookiesMakesNoExchange() throws {
        var session = try NTSProtocolTests.Session()
        while session.association.takeCookie() != nil {}
        expectThrows(NTSKEError.noCookies) {
            _ = try NTSClientExchange(association: session.association, limits: .init(), timeout: .seconds(1))
        }
    }
}
#endif
