import Crypto
import Testing
import TimeSync
import TimeSyncWire
import TimeSyncServerSupport
import TimeSyncFixtures
import TimeSyncRoughtime
import TimeSyncTesting

/// Combining one server's signed replies: every interval carried to the newest reply's instant and
/// intersected, a contradiction refused, the wall-clock offset read through `WallClockOffset`.
@Suite struct RoughtimeQueryResultTests {
    static let longTermKey = try! Curve25519.Signing.PrivateKey(rawRepresentation: [UInt8](repeating: 9, count: 32))
    static let publicKey = Array(longTermKey.publicKey.rawRepresentation)
    static let source = "roughtime://192.0.2.1:2002"
    static let address = IPEndpoint(host: "192.0.2.1", port: 2002)!
    static let configuration = EstimatorConfiguration()

    /// One verified exchange: a request sent at `sent`, its reply, signing `serverTime` (rounded to the
    /// second, ± 3 s), received `roundTrip` later.
    static func exchange(signing serverTime: UnixTime, sent: MonotonicInstant, roundTrip: Duration = .milliseconds(20), seed: UInt64) throws
        -> RoughtimeClient.Exchange
    {
        let responder = try RoughtimeResponder(longTermKey: longTermKey, validity: 1_700_000_000...1_900_000_000, versions: [.rfc])
        var generator = SeededGenerator(seed: seed)
        let request = RoughtimeRequest(versions: [.rfc], nonce: generator.bytes(32), serverKey: publicKey)
        let reply = try responder.respond(to: [request.packet], now: serverTime)[0].get()
        let response = try RoughtimeResponse.verify(reply, request: request, publicKey: publicKey)
        return RoughtimeClient.Exchange(
            request: request, response: response, requestSent: sent, responseReceived: sent.advanced(by: roundTrip), address: address)
    }

    /// A sample by hand: θ within `lower...upper` seconds at `time` seconds after boot.
    static func sample(_ lower: Double, _ upper: Double, at time: Int64) throws -> OffsetSample {
        try OffsetSample(
            source: source, offset: OffsetInterval(lower: Int64(lower * 1e9), upper: Int64(upper * 1e9)),
            time: MonotonicInstant(nanoseconds: time * 1_000_000_000), span: 0, delay: 0)
    }

    @Test func agreeingRepliesAreCarriedToTheNewestAndIntersected() throws {
        let timeBase = ManualTimeBase()
        // The server is 10 s ahead of the device's wall clock; each reply holds that within its ± 3 s.
        let first = try Self.exchange(signing: timeBase.wallNow().advanced(by: .seconds(10)), sent: timeBase.monotonicNow(), seed: 1)
        timeBase.advance(by: .seconds(30))
        let second = try Self.exchange(
            signing: timeBase.wallNow().advanced(by: .milliseconds(12_400)), sent: timeBase.monotonicNow(), roundTrip: .milliseconds(8), seed: 2)
        timeBase.advance(by: .seconds(1))

        // In any order: the result holds them oldest first.
        let result = try RoughtimeQueryResult(exchanges: [second, first], attempts: 3, source: Self.source, timeBase: timeBase)

        #expect(result.exchanges.map(\.requestSent) == [first.requestSent, second.requestSent])
        #expect(result.attempts == 3 && result.lost == 1)
        #expect(result.delay == .milliseconds(8))
        let samples = try [first, second].map { try $0.sample(source: Self.source) }
        #expect(result.samples == samples)
        let carried = samples.map {
            CarriedIntersection.carry($0, to: samples[1].time, rate: Self.configuration.ratePrior, slew: Self.configuration.slewAllowance)
        }
        #expect(carried[0].width > samples[0].offset.width + 2 * 15_000_000)  // 30 s at 500 ppm of slew, and drift
        let expected = try #require(carried[0].intersection(carried[1]))
        #expect(expected.width < samples[0].offset.width - 1_000_000_000)
        #expect(result.calibration.time == samples[1].time)
        #expect(result.calibration.offset == expected)
        #expect(result.calibration.estimate == expected.midpoint)
        #expect(result.calibration.rate == Self.configuration.ratePrior)
        #expect(result.calibration.slew == Self.configuration.slewAllowance)
        #expect(result.calibration.sources == [Self.source])

        // The wall-clock offset is the calibration read at the clocks' current pair, and holds the truth.
        #expect(result.wallClockOffset == WallClockOffset(result.calibration, pair: timeBase.wallClockPair()))
        #expect(result.wallClockOffset.bounds.contains(10_000_000_000))
        #expect(result.wallClockOffset.error < .milliseconds(2_100))
    }

    @Test func repliesThatCannotAllHoldAreAContradictionNamingEachSignedTime() throws {
        let timeBase = ManualTimeBase()
        let first = try Self.exchange(signing: timeBase.wallNow(), sent: timeBase.monotonicNow(), seed: 1)
        timeBase.advance(by: .seconds(1))
        // Ten seconds on in one: the ± 3 s intervals are far apart.
        let second = try Self.exchange(signing: timeBase.wallNow().advanced(by: .seconds(10)), sent: timeBase.monotonicNow(), seed: 2)

        let error = try #require(throws: RoughtimeError.self) {
            try RoughtimeQueryResult(exchanges: [first, second], source: Self.source, timeBase: timeBase)
        }
        #expect(error.code == .contradictorySignatures)
        #expect(error.detail == "\(first.response.midpoint) ± \(first.response.radius.readable), \(second.response.midpoint) ± 3.000 s")
        #expect("\(error)".hasPrefix("the Roughtime server signed times that cannot all hold"))
    }

    @Test func withoutExchangesThereIsNothingToCombine() {
        expectThrows(RoughtimeError.timeout) {
            try RoughtimeQueryResult(exchanges: [], source: Self.source, timeBase: ManualTimeBase())
        }
    }

    /// Two replies whose raw intervals miss each other by 0.1 s agree once the older one is carried
    /// 1000 s forward: 100 ppm of drift (0.1 s) and the server's slew allowance (capped at 128 ms).
    @Test func theCarryLetsRepliesFarApartAgree() throws {
        let older = try Self.sample(-3, 3, at: 1_000)
        let newer = try Self.sample(3.1, 9.1, at: 2_000)
        #expect(older.offset.intersection(newer.offset) == nil)

        let calibration = try RoughtimeQueryResult.intersection(
            of: [older, newer], signed: ["a", "b"], source: Self.source, configuration: Self.configuration)

        #expect(calibration.time == newer.time)
        #expect(calibration.offset.lower == 3_100_000_000)
        #expect(abs(calibration.offset.upper - 3_228_000_000) <= 1)
        #expect(calibration.estimate == calibration.offset.midpoint)
    }

    /// The older interval widens with the time it is carried: by the drift bound, and by the slew
    /// allowance up to its limit.
    @Test(arguments: [10, 100, 1_000, 10_000] as [Int64])
    func theCarryWidensWithElapsedTime(elapsed: Int64) throws {
        let older = try Self.sample(-3, 3, at: 1_000)
        let newer = try Self.sample(0, 100, at: 1_000 + elapsed)
        let calibration = try RoughtimeQueryResult.intersection(
            of: [older, newer], signed: ["a", "b"], source: Self.source, configuration: Self.configuration)
        let seconds = Double(elapsed) * 1e9
        let widening = Int64((1e-4 * seconds).rounded(.up)) + min(128_000_000, Int64((5e-4 * seconds).rounded(.up)))
        #expect(abs(calibration.offset.upper - (3_000_000_000 + widening)) <= 1, "\(calibration.offset)")
        #expect(calibration.offset.lower == 0)
    }

    @Test func theSameRepliesAtOneInstantContradict() throws {
        let older = try Self.sample(-3, 3, at: 1_000)
        let newer = try Self.sample(3.1, 9.1, at: 1_000)
        let error = try #require(throws: RoughtimeError.self) {
            try RoughtimeQueryResult.intersection(
                of: [older, newer], signed: ["A ± 3 s", "B ± 3 s"], source: Self.source, configuration: Self.configuration)
        }
        #expect(error.code == .contradictorySignatures && error.detail == "A ± 3 s, B ± 3 s")
    }
}
