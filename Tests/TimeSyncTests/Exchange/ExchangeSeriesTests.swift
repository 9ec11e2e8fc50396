import Testing
import TimeSync
import TimeSyncWire
import TimeSyncTesting

/// A series of exchanges with one server, on hand-given instants: the spacing, the waits a `RATE`
/// kiss asks for, the refusals that end it, the deadline.
@Suite struct ExchangeSeriesTests {
    static let start = MonotonicInstant(nanoseconds: 1_000_000_000)

    static func at(_ seconds: Double) -> MonotonicInstant {
        start.advanced(by: .milliseconds(Int64(seconds * 1000)))
    }

    /// The error a real reply gets, made by `mutate` from a good reply.
    static func refusal(_ mutate: (inout NTPPacket) -> Void) -> any Error {
        var request = NTPClientRequestTests.request()
        var packet = NTPClientRequestTests.reply(to: request)
        mutate(&packet)
        do {
            _ = try request.accept(packet, receivedAt: NTPClientRequestTests.t4)
            return NTPReplyError.duplicate  // never: every mutation below is refused
        } catch {
            return error
        }
    }

    static func kiss(_ code: NTPReferenceID, poll: Int8 = 0) -> any Error {
        refusal {
            $0.stratum = 0
            $0.referenceID = code
            $0.poll = poll
        }
    }

    /// Runs `series` as a transport would, each exchange taking 20 ms and ending as `outcome(n)`
    /// says (`nil`: a usable reply); returns the instants of the sends and the error that ended it.
    static func drive(_ series: inout ExchangeSeries, _ outcome: (Int) -> (any Error)?) -> (sends: [Double], timeouts: [Duration], error: (any Error)?) {
        var now = start
        var sends: [Double] = []
        var timeouts: [Duration] = []
        while true {
            switch series.next(at: now) {
            case .finished:
                return (sends, timeouts, nil)
            case .wait(let until):
                #expect(until > now, "a wait is for later")
                now = until
            case .send(let timeout):
                sends.append(start.duration(to: now).secondsValue)
                timeouts.append(timeout)
                now = now.advanced(by: .milliseconds(20))
                if let error = outcome(sends.count) {
                    guard series.fail(error, timedOut: false, at: now) else { return (sends, timeouts, error) }
                } else {
                    series.answer()
                }
            }
        }
    }

    @Test func requestsGoOutIntervalApartAndTheSeriesEndsAfterTheLast() {
        var series = ExchangeSeries(samples: 4, interval: .milliseconds(250), timeout: .seconds(5), start: Self.start)
        let run = Self.drive(&series) { _ in nil }
        #expect(run.sends == [0, 0.25, 0.5, 0.75])
        #expect(run.error == nil && series.answered == 4 && series.failed == 0)
        #expect(run.timeouts.allSatisfy { $0 == .seconds(5) })
    }

    /// A failure counts and the series goes on; the last failure is kept.
    @Test func aFailureCountsAndTheSeriesGoesOn() {
        var series = ExchangeSeries(samples: 3, interval: .milliseconds(250), timeout: .seconds(5), start: Self.start)
        let bad = Self.refusal { $0.receiveTimestamp = .zero }
        let run = Self.drive(&series) { $0 == 2 ? bad : nil }
        #expect(run.sends.count == 3 && run.error == nil)
        #expect(series.answered == 2 && series.failed == 1)
        #expect((series.lastError as? NTPReplyError)?.code == .zeroTimestamp)
    }

    /// `RATE` with poll 2 (4 s): that request does not count, the next waits 4 s, and the spacing
    /// stays at 4.4 s for the rest of the series.
    @Test func aRateKissIsWaitedOutAndWidensTheSpacing() {
        var series = ExchangeSeries(samples: 3, interval: .milliseconds(250), timeout: .seconds(5), start: Self.start)
        let run = Self.drive(&series) { $0 == 2 ? Self.kiss(.rate, poll: 2) : nil }
        #expect(run.error == nil)
        #expect(run.sends.count == 4, "the kissed request does not count")
        #expect(series.answered == 3 && series.failed == 0)
        let gaps = zip(run.sends.dropFirst(), run.sends).map { (($0 - $1) * 1000).rounded() / 1000 }
        #expect(gaps == [0.25, 4.02, 4.4], "\(run.sends)")
    }

    @Test(arguments: ["RATE 32 s", "DENY", "RSTR", "unsynchronized", "conflicting"])
    func aRefusalEndsTheSeriesAtOnce(_ name: String) {
        let error: any Error =
            switch name {
            case "RATE 32 s": Self.kiss(.rate, poll: 5)
            case "DENY": Self.kiss(.deny)
            case "RSTR": Self.kiss(NTPReferenceID(ascii: "RSTR")!)
            case "unsynchronized": Self.refusal { $0.leap = .unsynchronized }
            default: NTPReplyError.conflictingReplies
            }
        var series = ExchangeSeries(samples: 4, interval: .milliseconds(250), timeout: .seconds(5), start: Self.start)
        let run = Self.drive(&series) { $0 == 2 ? error : nil }
        #expect(run.sends.count == 2 && run.error != nil, "\(name)")
        #expect(series.answered == 1 && series.failed == 0)
    }

    /// An NTS server's authenticated `RATE` is waited out as NTP's is.
    @Test func anAuthenticatedRateKissIsWaitedOutToo() throws {
        let kiss = try #require(Self.kiss(.rate, poll: 1) as? NTPReplyError)
        var series = ExchangeSeries(samples: 2, interval: .milliseconds(250), timeout: .seconds(5), start: Self.start)
        let run = Self.drive(&series) { $0 == 1 ? NTSReplyError(ntp: kiss) : nil }
        #expect(run.error == nil && run.sends.count == 3 && series.answered == 2)
        #expect(run.sends[1] >= 2, "\(run.sends)")
    }

    /// No request once the deadline has passed, and each exchange gets at most what is left of it.
    @Test func theDeadlineBoundsEveryExchangeAndTheSeries() {
        var series = ExchangeSeries(
            samples: 8, interval: .milliseconds(400), timeout: .seconds(1), start: Self.start, deadline: Self.at(1))
        let run = Self.drive(&series) { _ in nil }
        #expect(run.sends == [0, 0.4, 0.8])
        #expect(run.timeouts == [.seconds(1), .milliseconds(600), .milliseconds(200)])
    }

    /// A server that kisses `RATE` at every request cannot hold the series forever: after `samples`
    /// kisses the next one ends it.
    @Test func endlessRateKissesEndTheSeries() {
        var series = ExchangeSeries(samples: 2, interval: .milliseconds(250), timeout: .seconds(5), start: Self.start)
        let run = Self.drive(&series) { _ in Self.kiss(.rate, poll: 0) }
        #expect(run.sends.count == 3 && run.error != nil)
    }

    /// A `RATE` kiss whose wait would pass the measurement's deadline ends the series with the kiss
    /// as its answer, so the poll schedule slows down with the server's interval, rather than the
    /// series sitting out its deadline and reporting a timeout.
    @Test func aRateWaitPastTheDeadlineIsTheSeriesAnswer() throws {
        var series = ExchangeSeries(
            samples: 4, interval: .milliseconds(250), timeout: .seconds(5), start: Self.start, deadline: Self.at(5))
        let run = Self.drive(&series) { $0 == 1 ? Self.kiss(.rate, poll: 3) : nil }
        #expect(run.sends == [0], "no request waits 8 s for a deadline 5 s away")
        let kiss = try #require(run.error as? NTPReplyError)
        #expect(kiss.code == .kissOfDeath)
        #expect(PollOutcome(failure: kiss) == .slowDown(interval: .seconds(8)))

        // The same wait within the deadline is sat out, and the series goes on.
        var roomy = ExchangeSeries(
            samples: 2, interval: .milliseconds(250), timeout: .seconds(5), start: Self.start, deadline: Self.at(30))
        let waited = Self.drive(&roomy) { $0 == 1 ? Self.kiss(.rate, poll: 3) : nil }
        #expect(waited.error == nil && roomy.answered == 2)
        #expect(waited.sends.count == 3 && waited.sends[1] >= 8.02)
    }
}
