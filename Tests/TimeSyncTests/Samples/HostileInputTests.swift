import Foundation
import Testing
import TimeSync
import TimeSyncFixtures
import TimeSyncTesting

/// Values from the network or from disk are range-checked where they enter: beyond a documented
/// limit they are a typed ``SampleError``, never a trap, and the clock keeps its last good state.
@Suite struct SampleLimitTests {
    let sent = Fixture.at(0)
    let received = Fixture.at(0.02)
    let now = UnixTime(nanoseconds: 1_767_225_600 * Fixture.second)

    @Test func serverTimesOutsideTheSupportedRangeAreRejected() {
        // A `Date` in 1678 and a `TimeSync-Time` at the edge of Int64 nanoseconds: well-formed, absurd.
        let year1678 = UnixTime(nanoseconds: -9_200_000_000 * Fixture.second)
        for serverTime in [year1678, UnixTime(nanoseconds: .min), UnixTime(nanoseconds: .max), SampleLimits.serverTimes.upperBound] {
            expectThrows(SampleError.timeOutOfRange) {
                try OffsetSample.exchange(
                    source: "a", requestSent: sent, serverReceive: serverTime, serverTransmit: serverTime, responseReceived: received)
            }
            expectThrows(SampleError.timeOutOfRange) {
                try OffsetSample.timestamp(
                    source: "a", serverTime: serverTime, resolution: .seconds(1), requestSent: sent, responseReceived: received)
            }
        }
        // The first and last admitted seconds are samples like any other.
        let first = SampleLimits.serverTimes.lowerBound
        #expect(throws: Never.self) {
            try OffsetSample.exchange(source: "a", requestSent: sent, serverReceive: first, serverTransmit: first, responseReceived: received)
        }
    }

    @Test func spanUncertaintyResolutionAndNameHaveLimits() {
        let longAfter = sent.advanced(by: SampleLimits.maximumSpan + .nanoseconds(1))
        expectThrows(SampleError.spanTooLong) {
            try OffsetSample.exchange(source: "a", requestSent: sent, serverReceive: now, serverTransmit: now, responseReceived: longAfter)
        }
        #expect(throws: Never.self) {
            try OffsetSample.exchange(
                source: "a", requestSent: sent, serverReceive: now, serverTransmit: now,
                responseReceived: sent.advanced(by: SampleLimits.maximumSpan))
        }
        expectThrows(SampleError.uncertaintyOutOfRange) {
            try OffsetSample.exchange(
                source: "a", requestSent: sent, serverReceive: now, serverTransmit: now, responseReceived: received,
                serverUncertainty: SampleLimits.maximumServerUncertainty + .nanoseconds(1))
        }
        expectThrows(SampleError.resolutionOutOfRange) {
            try OffsetSample.timestamp(
                source: "a", serverTime: now, resolution: SampleLimits.maximumResolution + .seconds(1), requestSent: sent,
                responseReceived: received)
        }
        expectThrows(SampleError.sourceNameTooLong) {
            try OffsetSample.exchange(
                source: String(repeating: "x", count: SampleLimits.maximumSourceNameLength + 1), requestSent: sent,
                serverReceive: now, serverTransmit: now, responseReceived: received)
        }
        // A monotonic instant no clock of this device produces (a corrupt store, a forged sample).
        expectThrows(SampleError.timeOutOfRange) {
            try OffsetSample.exchange(
                source: "a", requestSent: MonotonicInstant(nanoseconds: -1), serverReceive: now, serverTransmit: now,
                responseReceived: received)
        }
    }

    /// A server's "starts in N seconds" is input too: an absurd N is a typed error, and the extreme
    /// but admitted one counts down without overflowing.
    @Test func remainingDurationsHaveLimits() async throws {
        expectThrows(SampleError.timeOutOfRange) {
            try DeadlineInterval.remaining(.seconds(Int64.max), requestSent: sent, responseReceived: received)
        }
        expectThrows(SampleError.timeOutOfRange) {
            try DeadlineInterval.remaining(
                DeadlineInterval.maximumRemaining + .seconds(1), requestSent: sent, responseReceived: received)
        }
        expectThrows(SampleError.resolutionOutOfRange) {
            try DeadlineInterval.remaining(.seconds(5), resolution: .seconds(7200), requestSent: sent, responseReceived: received)
        }
        let far = try DeadlineInterval.remaining(
            DeadlineInterval.maximumRemaining, resolution: SampleLimits.maximumResolution, requestSent: sent, responseReceived: received)
        #expect(far.earliest < far.latest && far.earliest <= far.estimate && far.estimate <= far.latest)
        let base = ManualTimeBase(monotonic: received)
        var ticks = Countdown(to: far, timeBase: base).makeAsyncIterator()
        let first = try #require(try await ticks.next())
        #expect(first.days > 99 * 365 && !first.isFinished)
    }

    /// Decoding goes through the same checks as construction: a sample on disk is input too.
    @Test func decodedSamplesAreCheckedLikeNewOnes() throws {
        let sample = try OffsetSample.exchange(source: "a", requestSent: sent, serverReceive: now, serverTransmit: now, responseReceived: received)
        let good = try JSONEncoder().encode(sample)
        #expect(try JSONDecoder().decode(OffsetSample.self, from: good) == sample)
        func tampered(_ change: (inout [String: Any]) -> Void) throws -> Data {
            var object = try #require(try JSONSerialization.jsonObject(with: good) as? [String: Any])
            change(&object)
            return try JSONSerialization.data(withJSONObject: object)
        }
        let cases: [(String, Data)] = [
            ("huge span", try tampered { $0["span"] = Int64.max }),
            ("negative span", try tampered { $0["span"] = -5 }),
            ("time at Int64.min", try tampered { $0["time"] = ["nanoseconds": Int64.min] }),
            ("offset at Int64 edges", try tampered { $0["offset"] = ["lower": Int64.min, "upper": Int64.max] }),
            ("empty source", try tampered { $0["source"] = "" }),
        ]
        for (name, data) in cases {
            #expect(throws: (any Error).self, "\(name)") { try JSONDecoder().decode(OffsetSample.self, from: data) }
        }
    }
}

/// A store is input: validated like fresh samples, read only up to a size limit, ignored with a
/// warning when bad. The clock then starts unsynchronized; nothing crashes.
@Suite struct CorruptStoreTests {
    /// The install's key in these tests: content sealed with it verifies, so the checks behind the
    /// tag are what is tested.
    let key = FixedCalibrationKey(seed: 42)

    /// A valid store written by a calibrated clock on `base`.
    func validStore(base: ManualTimeBase) throws -> Data {
        let store = MemoryStore()
        let clock = ServerClock(timeBase: base, store: store, keyProvider: key)
        clock.calibrate(with: try Fixture.exchange("a", offset: 5 * Fixture.second, at: base.monotonicNow()))
        try clock.flush()
        base.advance(by: .seconds(1))
        return try #require(try store.load())
    }

    /// The JSON inside a valid store.
    func validContent(base: ManualTimeBase) throws -> Data {
        try PersistedCalibration.content(ofSealed: try validStore(base: base), key: key.bytes)
    }

    /// Content sealed with the install's key: a store that verifies whatever it says.
    func sealed(_ object: [String: Any]) throws -> Data {
        try PersistedCalibration.seal(content: try JSONSerialization.data(withJSONObject: object), key: key.bytes)
    }

    func tamperedSample(_ data: Data, _ change: (inout [String: Any]) -> Void) throws -> Data {
        var object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        var samples = try #require(object["samples"] as? [[String: Any]])
        change(&samples[0])
        object["samples"] = samples
        return try sealed(object)
    }

    @Test func aValidStoreRestores() throws {
        let base = ManualTimeBase()
        let clock = ServerClock(timeBase: base, store: MemoryStore(try validStore(base: base)), keyProvider: key)
        #expect(clock.isSynchronized)
        #expect(clock.reading().isRestored)
    }

    @Test(arguments: ["huge span", "time near Int64.min", "offset at Int64 edges", "server time in 1678"])
    func aStoreWithOutOfRangeValuesIsIgnored(_ name: String) throws {
        let base = ManualTimeBase()
        let valid = try validContent(base: base)
        let data = try tamperedSample(valid) { sample in
            switch name {
            case "huge span": sample["span"] = Int64.max / 2
            case "time near Int64.min": sample["time"] = ["nanoseconds": Int64.min + 1]
            case "offset at Int64 edges": sample["offset"] = ["lower": Int64.min, "upper": Int64.min + 1]
            default: sample["offset"] = ["lower": -9_200_000_000 * Fixture.second, "upper": -9_200_000_000 * Fixture.second + 1]
            }
        }
        let warnings = WarningLog()
        let clock = ServerClock(timeBase: base, store: MemoryStore(data), keyProvider: key, onWarning: warnings.record)
        #expect(!clock.isSynchronized)
        #expect(clock.calibration == nil)
        #expect(warnings.all.count == 1, "\(warnings.all)")
        #expect(warnings.all.first?.contains("corrupt: ") == true, "\(warnings.all)")
        // The clock works as if there had been no store.
        _ = clock.now
        _ = clock.reading()
        clock.calibrate(with: try Fixture.exchange("a", offset: 0, at: base.monotonicNow()))
        #expect(clock.isSynchronized)
    }

    @Test(arguments: ["anchor at Int64.min", "rate of 5 s/s"])
    func aStoredCalibrationOutOfRangeIsIgnored(_ name: String) throws {
        let base = ManualTimeBase()
        var object = try #require(try JSONSerialization.jsonObject(with: try validContent(base: base)) as? [String: Any])
        var calibration = try #require(object["calibration"] as? [String: Any])
        if name == "anchor at Int64.min" {
            calibration["time"] = ["nanoseconds": Int64.min]
        } else {
            var rate = try #require(calibration["rate"] as? [String: Any])
            rate["upper"] = 5.0
            calibration["rate"] = rate
        }
        object["calibration"] = calibration
        let warnings = WarningLog()
        let clock = ServerClock(timeBase: base, store: MemoryStore(try sealed(object)), keyProvider: key, onWarning: warnings.record)
        #expect(!clock.isSynchronized)
        #expect(warnings.all.count == 1, "\(warnings.all)")
        #expect(warnings.all.first?.contains("corrupt: ") == true, "\(warnings.all)")
    }

    /// A file over the size limit is not read at all: no store is that large, so it is refused as a
    /// file that is not one, and left as it is.
    @Test func anOversizeFileIsNotRead() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("timesync-oversize-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent("calibration.json")
        // A valid store padded with whitespace (still valid JSON) to 4 MiB.
        let base = ManualTimeBase()
        var data = try validStore(base: base)
        data.append(Data(repeating: UInt8(ascii: " "), count: 4 << 20))
        try data.write(to: url)
        let store = FileCalibrationStore(url: url)
        let refusal = expectThrows(FileCalibrationStoreError(path: url.path, code: .notAStore(size: Int64(data.count)))) { try store.load() }
        #expect(refusal?.path == url.path)
        let warnings = WarningLog()
        let clock = ServerClock(timeBase: base, store: store, keyProvider: key, onWarning: warnings.record)
        #expect(!clock.isSynchronized)
        #expect(warnings.all.count == 1)
        #expect(warnings.all.first?.contains("\(data.count) bytes that is not a TimeSync calibration store") == true, "\(warnings.all)")
        #expect(try Data(contentsOf: url) == data)
    }

    @Test func tooManySamplesAreIgnored() throws {
        let base = ManualTimeBase()
        var object = try #require(try JSONSerialization.jsonObject(with: try validContent(base: base)) as? [String: Any])
        let samples = try #require(object["samples"] as? [[String: Any]])
        object["samples"] = Array(repeating: samples[0], count: PersistedCalibration.maximumSamples + 1)
        let warnings = WarningLog()
        let clock = ServerClock(timeBase: base, store: MemoryStore(try sealed(object)), keyProvider: key, onWarning: warnings.record)
        #expect(!clock.isSynchronized)
        #expect(warnings.all.count == 1)
        #expect(warnings.all.first?.contains("more than \(PersistedCalibration.maximumSamples) samples") == true, "\(warnings.all)")
    }
}

/// `now` and `reading()` agree everywhere, including past the end of the representable range.
@Suite struct ExtremeReadingTests {
    @Test func nowAndReadingAgreeAtTheEnds() throws {
        for serverTime in [SampleLimits.serverTimes.lowerBound, UnixTime(nanoseconds: 7_258_118_399 * Fixture.second)] {
            let base = ManualTimeBase()
            let clock = ServerClock(timeBase: base)
            let t4 = base.monotonicNow()
            clock.calibrate(
                with: try OffsetSample.exchange(
                    source: "a", requestSent: t4.advanced(by: .milliseconds(-20)), serverReceive: serverTime,
                    serverTransmit: serverTime, responseReceived: t4))
            for step in [Duration.zero, .seconds(86_400), .seconds(100 * 365 * 86_400), .seconds(150 * 365 * 86_400)] {
                base.advance(by: step)
                let reading = clock.reading()
                let now = clock.now
                #expect(now == reading.serverTime, "after \(step)")
                #expect(reading.earliest <= reading.serverTime && reading.serverTime <= reading.latest)
            }
        }
    }
}

/// Within one source a contradicting sample is a suspect until a second one confirms it: one
/// outlier never wins, a real step does.
@Suite struct StepConfirmationTests {
    let lie = 1_000 * Fixture.second

    func samples(_ offsets: [Int64], source: String = "a", from start: Double = 0) throws -> [OffsetSample] {
        try offsets.enumerated().map { index, offset in
            try Fixture.exchange(source, offset: offset, at: Fixture.at(start + Double(index)))
        }
    }

    @Test func oneLyingSampleDoesNotMoveTheEstimate() throws {
        var estimator = IntersectionEstimator()
        var outcome = EstimatorOutcome.noSamples
        for sample in try samples([0, 0, 0, 0]) { outcome = estimator.add(sample) }
        guard case .calibrated(let before) = outcome else { Issue.record("no calibration"); return }
        let liar = try Fixture.exchange("a", offset: lie, at: Fixture.at(4))
        // Held: the calibration stays as it was, but nothing vouches for it until the next sample.
        guard case .contradicted(let after) = estimator.add(liar) else { Issue.record("the lie was not held"); return }
        #expect(after == before)
        #expect(estimator.suspectSamples == [liar])
        // The truth goes on: the liar stays a suspect, never part of the window.
        for sample in try samples([0, 0], from: 5) { _ = estimator.add(sample) }
        #expect(!estimator.samples.contains(liar))
        guard case .calibrated(let later) = estimator.add(try Fixture.exchange("a", offset: 0, at: Fixture.at(7))) else {
            Issue.record("lost the calibration")
            return
        }
        #expect(later.offset(at: Fixture.at(7)).bounds.contains(0))
    }

    @Test func aConfirmedStepIsFollowed() throws {
        var estimator = IntersectionEstimator()
        for sample in try samples([0, 0, 0, 0]) { _ = estimator.add(sample) }
        _ = estimator.add(try Fixture.exchange("a", offset: lie, at: Fixture.at(4)))
        guard case .calibrated(let stepped) = estimator.add(try Fixture.exchange("a", offset: lie, at: Fixture.at(5))) else {
            Issue.record("no calibration after the step")
            return
        }
        #expect(stepped.offset(at: Fixture.at(5)).bounds.contains(lie))
        #expect(estimator.suspectSamples.isEmpty)
        #expect(estimator.samples.allSatisfy { $0.offset.contains(lie) })
    }

    /// In a `ServerClock`: one lying reply neither resets the source nor moves the reading.
    @Test func aServerClockKeepsItsTimeThroughOneLie() throws {
        let base = ManualTimeBase()
        let clock = ServerClock(timeBase: base)
        for _ in 0..<4 {
            clock.calibrate(with: try Fixture.exchange("a", offset: 0, at: base.monotonicNow()))
            base.advance(by: .seconds(1))
        }
        let before = clock.calibration
        clock.calibrate(with: try Fixture.exchange("a", offset: lie, at: base.monotonicNow()))
        #expect(clock.calibration == before)
        // While the lie is held the clock does not vouch for its time; the next honest reply refutes it.
        #expect(clock.reading().status == .provisional)
        base.advance(by: .seconds(1))
        clock.calibrate(with: try Fixture.exchange("a", offset: 0, at: base.monotonicNow()))
        #expect(clock.isSynchronized)
        #expect(clock.reading().error < .milliseconds(20))
    }
}

/// A one-shot measurement answers with its largest consistent subset, or says the samples contradict
/// each other.
@Suite struct SampleConsensusTests {
    let lie = 1_000 * Fixture.second

    func samples(_ offsets: [Int64]) throws -> [OffsetSample] {
        try offsets.enumerated().map { index, offset in try Fixture.exchange("a", offset: offset, at: Fixture.at(0.02 * Double(index))) }
    }

    @Test(arguments: [[0, 0, 0, 1], [1, 0, 0, 0], [0, 1, 0, 0]])
    func oneLiarAmongFourIsOutvoted(_ liars: [Int64]) throws {
        let consensus = try SampleConsensus(try samples(liars.map { $0 * lie }))
        #expect(consensus.samples.count == 3)
        #expect(consensus.outliers.count == 1)
        #expect(consensus.outliers.allSatisfy { $0.offset.contains(lie) })
        #expect(consensus.calibration.offset(at: Fixture.at(0.06)).bounds.contains(0))
        #expect(!consensus.calibration.offset(at: Fixture.at(0.06)).bounds.contains(lie))
    }

    @Test func twoAgainstTwoHasNoAnswer() throws {
        let thrown = expectThrows(SampleConsensusError(largestAgreeing: 2, total: 4)) {
            try SampleConsensus(try samples([lie, lie, 0, 0]))
        }
        #expect(thrown?.largestAgreeing == 2 && thrown?.total == 4)
        let error = SampleConsensusError(largestAgreeing: 2, total: 4)
        #expect(error.description == "samples contradict each other: at most 2 of 4 agree, no majority")
    }

    @Test func agreeingSamplesAllCount() throws {
        let consensus = try SampleConsensus(try samples([0, 0, 0, 0]))
        #expect(consensus.samples.count == 4)
        #expect(consensus.outliers.isEmpty)
        let none = expectThrows(SampleConsensusError(largestAgreeing: 0, total: 0)) { try SampleConsensus([]) }
        #expect(none?.largestAgreeing == 0 && none?.total == 0)
    }
}
