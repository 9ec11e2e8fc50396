import Foundation
import Testing
import TimeSync
import TimeSyncWire
import TimeSyncFixtures
import TimeSyncTesting

/// Inputs that once crashed a fuzz target (`scripts/fuzz`), replayed through the same calls.
///
/// Each test names its input in `Fuzz/crashes/<target>/`; `FUZZ_TRACE=1 .build-fuzz/bin/estimator
/// FILE` prints the operations an estimator input decodes to. `scripts/fuzz` replays the files
/// themselves through the fuzz targets, with their invariant checks; these tests state what the
/// library does instead of trapping. Each runs in a child process (an exit test), so an input that
/// traps again fails its own test instead of ending the whole run.
@Suite struct FuzzRegressionTests {
    // MARK: ntp-packet

    /// `ntp-packet/wall-clock-at-int64-min`: a request made when the wall clock reads the earliest
    /// representable time (`Int64.flooredModulo` overflowed converting it to NTP).
    @Test func ntpTimestampOfTheEarliestRepresentableTime() async {
        await #expect(processExitsWith: .success) {
            let earliest = UnixTime(nanoseconds: .min)  // 1677-09-21T00:12:43.145224192Z
            let stamp = NTPTimestamp(earliest)
            #expect(NTPTimestamp.era(of: earliest) == -2)
            #expect(stamp.unixTime(near: earliest) == earliest)
            var generator = SeededGenerator(seed: 12)
            let request = NTPClientRequest(wallTime: earliest, monotonicTime: MonotonicInstant(nanoseconds: 1_000 * second), using: &generator)
            #expect(request.transmitTimestamp.seconds == stamp.seconds)
        }
    }

    /// The same arithmetic prints an unsynchronized reading's bounds, which are the ends of the range.
    @Test func theEndsOfTheRangePrint() async {
        await #expect(processExitsWith: .success) {
            #expect(UnixTime(nanoseconds: .min).description == "1677-09-21T00:12:43.145Z")
            #expect(UnixTime(nanoseconds: .max).description == "2262-04-11T23:47:16.854Z")
            let reading = ServerClock(timeBase: ManualTimeBase()).reading()
            #expect(reading.earliest.description == "1677-09-21T00:12:43.145Z")
        }
    }

    // MARK: http-date

    /// `http-date/leap-second-at-the-end-of-2261`: a leap second closing the last supported year named
    /// a second in 2262, which formats as a date the parser refuses. It is refused itself now; the
    /// same leap second a year earlier still parses, as the two seconds it may be.
    @Test func aLeapSecondPastTheSupportedYears() async {
        await #expect(processExitsWith: .success) {
            let reference = UnixTime(seconds: 1_767_225_600)
            #expect(throws: HTTPDateError.self) { try HTTPDate.parse("Tue, 31 Dec 2261 23:59:60 GMT", reference: reference) }
            let earlier = try HTTPDate.interval("Mon, 31 Dec 2260 23:59:60 GMT", reference: reference)
            #expect(earlier.length == .seconds(2))
            #expect(try HTTPDate.parse(HTTPDate.imfFixdate(earlier.start), reference: reference) == earlier.start)
        }
    }

    /// Times built from extreme seconds, milliseconds or a `Date` saturate instead of wrapping or
    /// trapping (`Date.distantFuture` is past 2262).
    @Test func extremeConversionsSaturate() async {
        await #expect(processExitsWith: .success) {
            #expect(UnixTime(seconds: .max) == UnixTime(nanoseconds: .max))
            #expect(UnixTime(seconds: .min) == UnixTime(nanoseconds: .min))
            #expect(UnixTime(seconds: 9_223_372_036, nanoseconds: 999_999_999) == UnixTime(nanoseconds: .max))
            #expect(UnixTime(milliseconds: .max) == UnixTime(nanoseconds: .max))
            #expect(UnixTime(milliseconds: .min) == UnixTime(nanoseconds: .min))
            #expect(UnixTime(Date.distantFuture) == UnixTime(nanoseconds: .max))
            #expect(UnixTime(Date.distantPast) == UnixTime(nanoseconds: .min))
            #expect(UnixTime(Date(timeIntervalSince1970: .nan)) == UnixTime(nanoseconds: 0))
        }
    }

    // MARK: estimator

    /// `estimator/exchange-t1-at-int64-min` and `estimator/timestamp-t1-at-int64-min`: a request
    /// "sent" at the earliest monotonic instant (t4 − t1 overflowed).
    @Test func aRequestSentAtTheEarliestInstantIsOutOfRange() async {
        await #expect(processExitsWith: .success) {
            let sent = MonotonicInstant(nanoseconds: .min)
            let received = MonotonicInstant(nanoseconds: 1_000 * second)
            let server = UnixTime(seconds: 1_767_225_600)
            expectThrows(SampleError.timeOutOfRange) {
                try OffsetSample.exchange(
                    source: "a", requestSent: sent, serverReceive: server, serverTransmit: server, responseReceived: received)
            }
            expectThrows(SampleError.timeOutOfRange) {
                try OffsetSample.timestamp(
                    source: "a", serverTime: server, resolution: .seconds(1), requestSent: sent, responseReceived: received)
            }
            expectThrows(SampleError.timeOutOfRange) {
                try OffsetSample.stamped(
                    source: "a", serverTime: server, processingTime: .zero, requestSent: sent, responseReceived: received)
            }
        }
    }

    /// `estimator/two-sources-2-pow-63-ns-apart` and `estimator/one-source-2-pow-63-ns-apart`:
    /// samples at monotonic ±2⁶² ns (the difference of their instants overflowed). Such instants are
    /// refused; samples as far apart as the admitted range allows are estimated.
    @Test func samplesAtTheEndsOfTheMonotonicRange() async {
        await #expect(processExitsWith: .success) {
            expectThrows(SampleError.timeOutOfRange) {
                try OffsetSample.timestamp(
                    source: "a", serverTime: UnixTime(seconds: 1_767_225_600), resolution: .seconds(1),
                    requestSent: MonotonicInstant(nanoseconds: -(1 << 62) - 20_000_000),
                    responseReceived: MonotonicInstant(nanoseconds: -(1 << 62)))
            }
            // 1950 at boot and 2150 after 200 years of uptime: θ is the same for both.
            let uptime: Int64 = 200 * 365 * 86_400 * second
            let early = try sample("a", serverTime: UnixTime(nanoseconds: -631_152_000 * second), at: 20_000_000)
            let late = try sample("b", serverTime: UnixTime(nanoseconds: -631_152_000 * second + uptime), at: uptime)

            var twoSources = IntersectionEstimator()
            _ = twoSources.add(early)
            guard case .calibrated(let calibration) = twoSources.add(late) else {
                Issue.record("the newer source alone must calibrate")
                return
            }
            // The older source fell 200 years behind: lost.
            #expect(calibration.sources == ["b"])
            #expect(twoSources.sources == ["b"])

            var oneSource = IntersectionEstimator()
            _ = oneSource.add(early)
            guard case .calibrated(let single) = oneSource.add(renamed(late, "a")) else {
                Issue.record("one source's samples 200 years apart must calibrate")
                return
            }
            #expect(single.offset.contains(late.offset.midpoint))
            #expect(single.rate.maxMagnitude <= EstimatorConfiguration().maxDrift)
        }
    }

    /// `estimator/spans-of-2-pow-62-ns`: two exchanges of one source that each took 2⁶² ns (the sum
    /// of their spans overflowed). Such spans are refused; the longest admitted ones are estimated.
    @Test func exchangesThatTookForever() async {
        await #expect(processExitsWith: .success) {
            let server = UnixTime(seconds: 1_767_225_600)
            expectThrows(SampleError.spanTooLong) {
                try OffsetSample.exchange(
                    source: "a", requestSent: MonotonicInstant(nanoseconds: 0), serverReceive: server, serverTransmit: server,
                    responseReceived: MonotonicInstant(nanoseconds: 1 << 62))
            }
            let hour = 3_600 * second
            var estimator = IntersectionEstimator()
            for index: Int64 in 1...2 {
                let sent = MonotonicInstant(nanoseconds: index * 2 * hour)
                let sample = try OffsetSample.exchange(
                    source: "a", requestSent: sent, serverReceive: server.advanced(by: .seconds(index * 7_200 + 1_800)),
                    serverTransmit: server.advanced(by: .seconds(index * 7_200 + 1_800)),
                    responseReceived: sent.advanced(by: .nanoseconds(hour)))
                #expect(sample.span == hour)
                guard case .calibrated = estimator.add(sample) else {
                    Issue.record("hour-long exchanges of one source must calibrate")
                    return
                }
            }
        }
    }

    /// `estimator/offset-change-1900-after-2199`: a server at 2199 is removed and one at 1900 takes
    /// over; the estimate moved by more than `Int64` holds (the change overflowed, then `abs` of its
    /// saturated value trapped). Both samples are inside the admitted server times.
    @Test func anOffsetChangeBeyondInt64() async {
        await #expect(processExitsWith: .success) {
            let base = ManualTimeBase()
            let clock = ServerClock(timeBase: base)
            let events = clock.events()
            clock.calibrate(with: try exchange("a", serverTime: lastSecondBefore2200, base: base))
            clock.removeSource("a")
            clock.calibrate(with: try exchange("b", serverTime: firstSecondAfter1900, base: base))

            let reading = clock.reading()
            #expect(reading.isSynchronized)
            #expect(abs(reading.serverTime.nanoseconds - firstSecondAfter1900.nanoseconds) < second)
            // The change is reported, saturated: the server's time moved back by about 300 years.
            clock.reject(source: "end", reason: "end of the test's events")
            var changes: [Duration] = []
            for await event in events {
                if case .offsetChanged(let change) = event { changes.append(change) }
                if case .sampleRejected = event { break }
            }
            #expect(changes.count == 1)
            #expect(changes.allSatisfy { $0 < .seconds(-292 * 365 * 86_400) })
        }
    }

    /// `estimator/wall-clock-jump-by-int64-min`: the wall clock jumps back by 2⁶³ ns (`abs` of the
    /// saturated change trapped).
    @Test func aWallClockJumpBeyondInt64() async {
        await #expect(processExitsWith: .success) {
            let base = ManualTimeBase()
            let clock = ServerClock(timeBase: base)
            base.jumpWall(by: .nanoseconds(Int64.min))
            let change = clock.checkWallClock()
            #expect(change != nil)
            #expect((change ?? .zero) < .seconds(-292 * 365 * 86_400))
            #expect(clock.checkWallClock() == nil)
        }
    }

    /// `estimator/unsynchronized-saturated-wall`: before any calibration, with the wall clock jumped to
    /// the earliest representable time. `now` is the wall clock; `reading()` carried it through
    /// wall − monotonic, which saturated, and landed 17 minutes later.
    @Test func anUnsynchronizedReadingOfASaturatedWallClockIsTheWallClock() async {
        await #expect(processExitsWith: .success) {
            let base = ManualTimeBase()
            let clock = ServerClock(timeBase: base)
            base.jumpWall(by: .nanoseconds(Int64.min))
            base.jumpWall(by: .nanoseconds(Int64.min))
            #expect(base.wallNow() == UnixTime(nanoseconds: .min))
            #expect(clock.reading().serverTime == clock.now)
            #expect(clock.now == UnixTime(nanoseconds: .min))
            #expect(clock.deviceTime(forServerTime: clock.now) == clock.now)
        }
    }

    /// `estimator/now-100-years-after-2199`: calibrated at 2199, read 100 years of uptime later. `now`
    /// wrapped to 1715 while `reading()` saturated; both now end at the latest representable time.
    @Test func nowPastTheEndOfTheRangeSaturates() async {
        await #expect(processExitsWith: .success) {
            let base = ManualTimeBase()
            let clock = ServerClock(timeBase: base)
            clock.calibrate(with: try exchange("a", serverTime: lastSecondBefore2200, base: base))
            base.advance(by: .seconds(100 * 365 * 86_400))
            #expect(clock.reading().serverTime == UnixTime(nanoseconds: .max))
            #expect(clock.now == UnixTime(nanoseconds: .max))
        }
    }

    // MARK: store-restore

    /// `store-restore/sample-at-int64-min.json`: a store whose sample was taken at monotonic
    /// `Int64.min` (restoring it overflowed in the estimator): corrupt, so ignored with a warning.
    @Test func aStoredSampleAtTheEarliestInstantIsIgnored() async {
        await #expect(processExitsWith: .success) {
            let key = FixedCalibrationKey(seed: 1)
            let boot = PersistedCalibration.bootSessionTag("manual-boot-1", key: key.bytes)
            let stored = #"{"bootSessionID":""# + boot + #"","calibration":null,"samples":[{"delay":20000000,"offset":{"lower":1767225600000000000,"upper":1767225600020000000},"source":"a","span":20000000,"time":{"nanoseconds":-9223372036854775808}},{"delay":20000000,"offset":{"lower":1767224600000000000,"upper":1767224600020000000},"source":"b","span":20000000,"time":{"nanoseconds":999000000000}}],"savedAt":{"nanoseconds":999000000000},"strategy":"default","version":2}"#
            let sealed = try PersistedCalibration.seal(content: Data(stored.utf8), key: key.bytes)
            let warnings = WarningLog()
            let clock = ServerClock(
                timeBase: ManualTimeBase(), store: MemoryStore(sealed), keyProvider: key, onWarning: warnings.record)
            #expect(!clock.isSynchronized)
            #expect(clock.calibration == nil)
            #expect(warnings.all.count == 1)
            #expect(warnings.all.first?.contains("corrupt") == true)
        }
    }
}

private let second: Int64 = 1_000_000_000
/// 2199-12-31T23:59:59Z and 1900-01-01T00:00:01Z: inside the server times a sample may carry.
private let lastSecondBefore2200 = UnixTime(nanoseconds: 7_258_118_399 * second)
private let firstSecondAfter1900 = UnixTime(nanoseconds: -2_208_988_799 * second)

/// A 20 ms exchange ending now on `base`, the server reading `serverTime` throughout.
private func exchange(_ source: String, serverTime: UnixTime, base: ManualTimeBase) throws -> OffsetSample {
    let t4 = base.monotonicNow()
    return try OffsetSample.exchange(
        source: source, requestSent: t4.advanced(by: .milliseconds(-20)), serverReceive: serverTime,
        serverTransmit: serverTime, responseReceived: t4)
}

/// A 20 ms exchange ending at monotonic `t4`, the server reading `serverTime` throughout.
private func sample(_ source: String, serverTime: UnixTime, at t4: Int64) throws -> OffsetSample {
    let received = MonotonicInstant(nanoseconds: t4)
    return try OffsetSample.exchange(
        source: source, requestSent: received.advanced(by: .milliseconds(-20)), serverReceive: serverTime,
        serverTransmit: serverTime, responseReceived: received)
}

private func renamed(_ sample: OffsetSample, _ source: String) -> OffsetSample {
    var sample = sample
    sample.source = source
    return sample
}

