import Testing
import TimeSync
import TimeSyncWire

/// One measurement over UDP, on hand-given instants: resolution, the addresses tried in order, the
/// series on each, the refusals that end it, the deadline, and what an exchange hands its successor.
@Suite struct DatagramMeasurementTests {
    static let start = MonotonicInstant(nanoseconds: 1_000_000_000)
    static let first = IPEndpoint(host: "192.0.2.1", port: 123)!
    static let second = IPEndpoint(host: "2001:db8::1", port: 123)!

    /// An exchange whose server's answer is the datagram's first byte, and which counts its
    /// generation (what NTS's cookies are to a real one): each successor is one more.
    struct CountingExchange: DatagramExchange {
        struct Answer: Sendable, Hashable {
            var generation: Int
        }
        var generation = 0
        /// The generation whose successor cannot be made (NTS: no cookie left).
        var lastGeneration = Int.max
        var timeout: Duration = .seconds(5)

        mutating func start(at now: MonotonicInstant, wallTime: UnixTime) -> (datagram: [UInt8], deadline: MonotonicInstant) {
            ([UInt8(truncatingIfNeeded: generation)], now.advanced(by: timeout))
        }

        mutating func receive(_ datagram: [UInt8], at now: MonotonicInstant) -> ExchangeStep<Answer> {
            switch Reply(rawValue: datagram.first ?? 0) {
            case .answer: .done(Answer(generation: generation))
            case .stray: .listen(until: nil)
            case .deny: .failed(ExchangeSeriesTests.kiss(.deny))
            case .unsynchronized: .failed(ExchangeSeriesTests.refusal { $0.leap = .unsynchronized })
            case .shortRate: .failed(ExchangeSeriesTests.kiss(.rate, poll: 1))
            case .longRate: .failed(ExchangeSeriesTests.kiss(.rate, poll: 5))
            case .rejected: .failed(ExchangeSeriesTests.refusal { $0.receiveTimestamp = .zero })
            default: .listen(until: nil)
            }
        }

        mutating func finish(at now: MonotonicInstant) -> ExchangeStep<Answer> { .silent(lastDropped: nil) }

        func successor() throws -> CountingExchange {
            guard generation < lastGeneration else { throw NTSKEError(.noCookies) }
            return CountingExchange(generation: generation + 1, lastGeneration: lastGeneration, timeout: timeout)
        }
    }

    /// What a server does with a request.
    enum Reply: UInt8 {
        case answer = 1, stray, deny, unsynchronized, shortRate, longRate, rejected
        /// No datagram: the listening ends at its instant.
        case silence = 100
        /// ICMP port unreachable.
        case unreachable
    }

    /// The protocol's error for requests nobody answered.
    struct TimedOut: Error {
        var text: String
    }

    struct Run {
        /// Each request: its address and when it left, in seconds from the start.
        var requests: [(address: IPEndpoint, at: Double)] = []
        /// Each request's instant to stop listening at, in seconds from the start.
        var listenUntil: [Double] = []
        var resolutions = 0
        var answers: [DatagramMeasurement<CountingExchange>.Answered]?
        var error: (any Error)?
    }

    /// Runs `measurement` as a driver would: a resolver that answers `addresses`, each reply taking
    /// 20 ms, and `reply(address, n)` saying what the server does with the n-th request overall.
    static func drive(
        _ measurement: inout DatagramMeasurement<CountingExchange>, addresses: [IPEndpoint] = [first, second],
        _ reply: (IPEndpoint, Int) -> Reply
    ) -> Run {
        var now = start
        var run = Run()
        for _ in 0..<1000 {
            switch measurement.next(at: now) {
            case .done(let answers):
                run.answers = answers
                return run
            case .failed(let error):
                run.error = error
                return run
            case .wait(let until):
                #expect(until > now, "a wait is for later")
                now = until
            case .resolve(_, _, let deadline):
                #expect(deadline == measurement.deadline, "resolution gets the measurement's deadline")
                run.resolutions += 1
                now = now.advanced(by: .milliseconds(5))
                measurement.resolved(addresses)
            case .open(let address):
                let (datagram, listenUntil) = measurement.opened(at: now, wallTime: UnixTime(nanoseconds: 0))
                run.requests.append((address, start.duration(to: now).secondsValue))
                run.listenUntil.append(start.duration(to: listenUntil).secondsValue)
                #expect(listenUntil <= measurement.deadline.instant, "no listening past the deadline")
                #expect(datagram.count == 1)
                switch reply(address, run.requests.count) {
                case .silence:
                    now = listenUntil
                    measurement.listenEnded(at: now, unseen: nil)
                case .unreachable:
                    now = now.advanced(by: .milliseconds(1))
                    measurement.unreachable(ExchangeSeriesTests.refusal { $0.receiveTimestamp = .zero }, at: now)
                case let other:
                    now = now.advanced(by: .milliseconds(20))
                    if measurement.received([other.rawValue], at: now) == .listen(until: nil) {
                        now = listenUntil
                        measurement.listenEnded(at: now, unseen: nil)
                    }
                }
            }
        }
        Issue.record("the measurement did not end")
        return run
    }

    static func measurement(
        samples: Int = 1, maxRequests: Int? = nil, exchangeTimeout: Duration? = nil, deadline: Duration = .seconds(5),
        lastGeneration: Int = .max
    ) -> DatagramMeasurement<CountingExchange> {
        DatagramMeasurement(
            host: "time.example", port: 123, first: CountingExchange(lastGeneration: lastGeneration),
            series: .init(samples: samples, maxRequests: maxRequests, interval: .milliseconds(250), exchangeTimeout: exchangeTimeout),
            deadline: Deadline(after: deadline, from: start), timedOut: { TimedOut(text: $0) })
    }

    @Test func theNameIsResolvedOnceAndTheFirstAddressAnswers() throws {
        var measurement = Self.measurement(samples: 3)
        let run = Self.drive(&measurement) { _, _ in .answer }
        #expect(run.resolutions == 1)
        let answers = try #require(run.answers)
        #expect(answers.map(\.answer.generation) == [0, 1, 2], "each exchange is its predecessor's successor")
        #expect(answers.allSatisfy { $0.address == Self.first })
        #expect(run.requests.map(\.at) == [0.005, 0.255, 0.505])
        #expect(measurement.requests == 3 && measurement.exchanges.count == 3)
    }

    /// The first address never answers: the second gets what is left of the one deadline.
    @Test func aSilentAddressGivesWayToTheNextWithinTheOneDeadline() throws {
        var measurement = Self.measurement(exchangeTimeout: .seconds(2), deadline: .seconds(3))
        let run = Self.drive(&measurement) { address, _ in address == Self.first ? .silence : .answer }
        let answers = try #require(run.answers)
        #expect(answers.map(\.address) == [Self.second])
        #expect(run.requests.map(\.address) == [Self.first, Self.second])
        #expect(run.listenUntil[0] == 2.005, "the first listens for the exchange's timeout")
        #expect(run.listenUntil[1] == 3, "the second only until the measurement's deadline")
    }

    @Test func aClosedPortOrAnUnsynchronizedServerMovesOnToTheNextAddress() throws {
        for reply in [Reply.unreachable, .unsynchronized] {
            var measurement = Self.measurement()
            let run = Self.drive(&measurement) { address, _ in address == Self.first ? reply : .answer }
            #expect(run.answers?.map(\.address) == [Self.second], "\(reply)")
        }
    }

    /// A refusal that speaks for the server ends the measurement: its other addresses are not asked.
    @Test(arguments: [Reply.deny, .longRate])
    func aRefusalForTheServerEndsTheMeasurement(_ reply: Reply) throws {
        var measurement = Self.measurement(samples: 2)
        let run = Self.drive(&measurement) { _, _ in reply }
        #expect(run.requests.count == 1 && run.answers == nil)
        let kiss = try #require(run.error as? NTPReplyError)
        #expect(kiss.code == .kissOfDeath)
        if reply == .longRate {
            #expect(PollOutcome(failure: kiss) == .slowDown(interval: .seconds(32)), "the schedule hears the server's interval")
        }
    }

    /// A `RATE` kiss asking for 2 s is waited out, then the series goes on.
    @Test func aShortRateKissIsWaitedOut() throws {
        var measurement = Self.measurement(samples: 2, deadline: .seconds(10))
        let run = Self.drive(&measurement) { _, n in n == 1 ? .shortRate : .answer }
        #expect(try #require(run.answers).count == 2)
        #expect(run.requests.count == 3 && run.requests[1].at >= 2.025, "\(run.requests.map(\.at))")
    }

    /// Every address silent: the verdict is the protocol's timeout, saying how many requests went
    /// unanswered in how long; nothing is sent after the deadline.
    @Test func silenceEverywhereIsATimeoutThatSaysWhatHappened() throws {
        var measurement = Self.measurement(samples: 2, exchangeTimeout: .seconds(1), deadline: .seconds(3))
        let run = Self.drive(&measurement) { _, _ in .silence }
        let error = try #require(run.error as? TimedOut)
        #expect(run.requests.allSatisfy { $0.at < 3 })
        #expect(run.listenUntil.allSatisfy { $0 <= 3 })
        #expect(run.requests.count == 3, "two on the first address, one in what is left for the second: \(run.requests.map(\.at))")
        #expect(error.text.hasPrefix("from [2001:db8::1]:123: 1 request unanswered in"), "\(error.text)")
    }

    /// A lost request is sent again while `maxRequests` allows (Roughtime's queries).
    @Test func aLostRequestIsMadeUpForWithinMaxRequests() throws {
        var measurement = Self.measurement(samples: 2, maxRequests: 4, exchangeTimeout: .milliseconds(500), deadline: .seconds(10))
        let run = Self.drive(&measurement) { _, n in n.isMultiple(of: 2) ? .silence : .answer }
        #expect(try #require(run.answers).count == 2)
        #expect(measurement.requests == 3)

        var strict = Self.measurement(samples: 2, exchangeTimeout: .milliseconds(500), deadline: .seconds(10))
        let once = Self.drive(&strict) { _, n in n.isMultiple(of: 2) ? .silence : .answer }
        #expect(try #require(once.answers).count == 1, "by default a lost request is not made up for")
        #expect(strict.requests == 2)
    }

    /// A successor that cannot be made (NTS: no cookie left) ends the measurement with what it has.
    @Test func aSuccessorThatCannotBeMadeEndsTheMeasurement() throws {
        var measurement = Self.measurement(samples: 4, lastGeneration: 1)
        let run = Self.drive(&measurement) { _, _ in .answer }
        #expect(try #require(run.answers).map(\.answer.generation) == [0, 1])

        var none = Self.measurement(samples: 2, exchangeTimeout: .seconds(1), lastGeneration: 0)
        let failed = Self.drive(&none) { _, _ in .silence }
        #expect((failed.error as? NTSKEError)?.code == .noCookies)
    }

    /// A stray datagram changes nothing: the wait goes on until the real reply or the listening's end.
    @Test func aStrayDatagramLeavesTheExchangeListening() {
        var measurement = Self.measurement()
        guard case .resolve = measurement.next(at: Self.start) else { Issue.record("no resolution"); return }
        measurement.resolved([Self.first])
        guard case .open = measurement.next(at: Self.start) else { Issue.record("no request"); return }
        _ = measurement.opened(at: Self.start, wallTime: UnixTime(nanoseconds: 0))
        #expect(measurement.received([Reply.stray.rawValue], at: Self.start) == .listen(until: nil))
        #expect(measurement.received([Reply.answer.rawValue], at: Self.start) == .ended)
        guard case .done(let answers) = measurement.next(at: Self.start) else { Issue.record("no answer"); return }
        #expect(answers.count == 1)
    }

    @Test func anEmptyResolutionOrAFailedOneEndsTheMeasurement() {
        var empty = Self.measurement()
        let run = Self.drive(&empty, addresses: []) { _, _ in .answer }
        #expect(run.error != nil && run.requests.isEmpty)
        var failed = Self.measurement()
        _ = failed.next(at: Self.start)
        failed.resolutionFailed(NTSKEError(.timeout))
        guard case .failed(let error) = failed.next(at: Self.start) else { Issue.record("not failed"); return }
        #expect((error as? NTSKEError)?.code == .timeout)
    }
}
