import Testing
import TimeSync
import TimeSyncFixtures

@Suite struct OffsetIntervalTests {
    @Test(arguments: [
        // (t1, t2, t3, t4) → expected [lower, upper]
        (Int64(100), Int64(1_110), Int64(1_110), Int64(120), Int64(990), Int64(1_010)),  // server ahead by 1000, symmetric
        (100, -890, -880, 130, -1_010, -990),  // server behind by 1000, 10 ns processing
        (0, 30, 40, 50, -10, 30),  // asymmetric split cannot be seen: the interval holds every split
    ])
    func exchangeBounds(t1: Int64, t2: Int64, t3: Int64, t4: Int64, lower: Int64, upper: Int64) throws {
        let interval = try OffsetInterval.exchange(t1: t1, t2: t2, t3: t3, t4: t4)
        #expect(interval.lower == lower)
        #expect(interval.upper == upper)
        // The midpoint is the classic NTP offset; the half-width is delay / 2.
        #expect(interval.midpoint == ((t2 - t1) + (t3 - t4)) / 2)
        #expect(interval.width == (t4 - t1) - (t3 - t2))
    }

    @Test func signsFollowTheServer() throws {
        let ahead = try Fixture.exchange(offset: 5 * Fixture.second, at: Fixture.at(0))
        let behind = try Fixture.exchange(offset: -5 * Fixture.second, at: Fixture.at(0))
        #expect(ahead.offset.midpoint == 5 * Fixture.second)
        #expect(behind.offset.midpoint == -5 * Fixture.second)
        #expect(ahead.offset.contains(5 * Fixture.second) && behind.offset.contains(-5 * Fixture.second))
        #expect(ahead.delay == 20 * Fixture.millisecond)
    }

    @Test func everySplitOfTheRoundTripIsInside() throws {
        // Whatever the split, the true offset lies in the interval.
        for forward in stride(from: Int64(0), through: 100, by: 10) {
            let sample = try Fixture.exchange(offset: 777, at: Fixture.at(1), forward: forward, backward: 100 - forward, processing: 5)
            #expect(sample.offset.contains(777))
            #expect(sample.offset.width == 100)
        }
    }

    @Test func inconsistentTimestampsAreTypedErrors() {
        expectThrows(SampleError.replyBeforeRequest) { try OffsetInterval.exchange(t1: 10, t2: 0, t3: 0, t4: 9) }
        expectThrows(SampleError.serverTimestampsReversed) { try OffsetInterval.exchange(t1: 0, t2: 5, t3: 4, t4: 9) }
        expectThrows(SampleError.negativeDelay) { try OffsetInterval.exchange(t1: 0, t2: 0, t3: 20, t4: 10) }
        expectThrows(SampleError.emptyInterval) { try OffsetInterval(lower: 2, upper: 1) }
        expectThrows(SampleError.negativeResolution) { try OffsetInterval.timestamp(0, resolution: -1, t1: 0, t4: 1) }
    }

    @Test func oneSecondDateHeader() throws {
        // Date: 12:00:00 observed between t1 and t4: the server's clock read [D, D + 1 s) meanwhile.
        let d = UnixTime(seconds: 1_800_000_000)
        let t1 = Fixture.at(0)
        let t4 = Fixture.at(0.05)
        let sample = try OffsetSample.timestamp(source: "date", serverTime: d, resolution: .seconds(1), requestSent: t1, responseReceived: t4)
        #expect(sample.offset.lower == d.nanoseconds - t4.nanoseconds)
        #expect(sample.offset.upper == d.nanoseconds + Fixture.second - t1.nanoseconds)
        #expect(sample.offset.width == Fixture.second + 50 * Fixture.millisecond)
    }

    @Test func stampedWithProcessingTime() throws {
        // A JSON body's convention: the server reports its time as late as possible and the time it spent.
        let t1 = Fixture.at(0)
        let t4 = Fixture.at(0.1)
        let server = UnixTime(nanoseconds: t1.nanoseconds + 3 * Fixture.second + 60 * Fixture.millisecond)
        let sample = try OffsetSample.stamped(
            source: "own", serverTime: server, processingTime: .milliseconds(40), requestSent: t1, responseReceived: t4)
        #expect(sample.delay == 60 * Fixture.millisecond)
        #expect(sample.offset.contains(3 * Fixture.second))
        expectThrows(SampleError.negativeDuration) {
            try OffsetSample.stamped(source: "own", serverTime: server, processingTime: .milliseconds(-1), requestSent: t1, responseReceived: t4)
        }
    }

    @Test func serverUncertaintyWidensBothSides() throws {
        let plain = try Fixture.exchange(offset: 0, at: Fixture.at(0))
        let widened = try OffsetSample.exchange(
            source: "server", requestSent: Fixture.at(0), serverReceive: UnixTime(nanoseconds: Fixture.at(0.01).nanoseconds),
            serverTransmit: UnixTime(nanoseconds: Fixture.at(0.01).nanoseconds), responseReceived: Fixture.at(0.02),
            serverUncertainty: .milliseconds(3))
        #expect(widened.offset.lower == plain.offset.lower - 3 * Fixture.millisecond)
        #expect(widened.offset.upper == plain.offset.upper + 3 * Fixture.millisecond)
        expectThrows(SampleError.negativeUncertainty) {
            try OffsetSample.exchange(
                source: "s", requestSent: Fixture.at(0), serverReceive: UnixTime(nanoseconds: 0), serverTransmit: UnixTime(nanoseconds: 0),
                responseReceived: Fixture.at(1), serverUncertainty: .milliseconds(-1))
        }
    }

    @Test func intersectionAndHull() throws {
        let a = try OffsetInterval(lower: 0, upper: 10)
        let b = try OffsetInterval(lower: 5, upper: 20)
        let c = try OffsetInterval(lower: 11, upper: 12)
        #expect(a.intersection(b) == (try OffsetInterval(lower: 5, upper: 10)))
        #expect(a.intersection(c) == nil)
        #expect(a.hull(c) == (try OffsetInterval(lower: 0, upper: 12)))
        #expect(a.widened(by: 3) == (try OffsetInterval(lower: -3, upper: 13)))
    }

    @Test func agingWidensAtTheRateBounds() throws {
        let sample = try Fixture.exchange(offset: 0, at: Fixture.at(0), forward: 0, backward: 0)
        let aged = sample.offset(at: Fixture.at(100), rate: .symmetric(100e-6))
        // 100 s at 100 ppm: 10 ms each side.
        #expect(aged.lower == -10 * Fixture.millisecond)
        #expect(aged.upper == 10 * Fixture.millisecond)
    }

    @Test func remainingDurationIsADeadlineInterval() throws {
        let deadline = try DeadlineInterval.remaining(
            .seconds(30), resolution: .seconds(1), requestSent: Fixture.at(0), responseReceived: Fixture.at(0.2))
        #expect(deadline.earliest == Fixture.at(30))
        #expect(deadline.latest == Fixture.at(31.2))
        expectThrows(SampleError.negativeDuration) {
            try DeadlineInterval.remaining(.seconds(-1), requestSent: Fixture.at(0), responseReceived: Fixture.at(1))
        }
        expectThrows(SampleError.replyBeforeRequest) {
            try DeadlineInterval.remaining(.seconds(1), requestSent: Fixture.at(1), responseReceived: Fixture.at(0))
        }
    }

    /// An interval in a message reads as seconds, exact at any size (a zero-width one included),
    /// never as the type's fields.
    @Test func anIntervalPrintsInSeconds() throws {
        #expect("\(try OffsetInterval(lower: -1_234_567, upper: 2_345_678_901))" == "[-0.001234567 s, +2.345678901 s]")
        #expect("\(try OffsetInterval(lower: 5, upper: 5))" == "[+0.000000005 s, +0.000000005 s]")
        #expect("\(try OffsetInterval(lower: .min, upper: .max))" == "[-9223372036.854775808 s, +9223372036.854775807 s]")
    }
}
