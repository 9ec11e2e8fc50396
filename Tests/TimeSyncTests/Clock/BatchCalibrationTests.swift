import Testing
import TimeSync
import TimeSyncFixtures
import TimeSyncTesting

/// A measurement's samples reach the clock as one batch: one estimator call and vote, one published
/// model, one `calibrated` event, one write; a restored source's history joins the same call.
@Suite struct BatchCalibrationTests {
    /// An estimator that counts the calls it gets, around the default one.
    struct CountingEstimator: OffsetEstimator {
        var inner = IntersectionEstimator()
        var batches = 0
        var singles = 0
        var historyOffered = 0

        mutating func add(_ sample: OffsetSample) -> EstimatorOutcome {
            singles += 1
            return inner.add(sample)
        }

        mutating func add(contentsOf samples: [OffsetSample], history: [OffsetSample]) -> EstimatorOutcome? {
            batches += 1
            historyOffered += history.count
            return inner.add(contentsOf: samples, history: history)
        }

        mutating func removeSource(_ source: String) -> EstimatorOutcome { inner.removeSource(source) }
        mutating func restore(_ samples: [OffsetSample]) -> EstimatorOutcome { inner.restore(samples) }
        var samples: [OffsetSample] { inner.samples }
        var sources: [String] { inner.sources }
    }

    /// Eight samples from two sources, taken 30 ms apart from `start`.
    static func measurement(from start: MonotonicInstant) throws -> [OffsetSample] {
        try (0..<8).map { index in
            try Fixture.exchange(index % 2 == 0 ? "a" : "b", offset: 0, at: start.advanced(by: .milliseconds(30 * index)))
        }
    }

    @Test func aMeasurementIsOneEstimatorCallOneEventOnePublish() throws {
        var state = CalibrationState(estimator: CountingEstimator(), minimumAgreeingSources: 2, offsetChangeThreshold: .milliseconds(1))
        let samples = try Self.measurement(from: Fixture.at(0))
        let change = state.add(samples, at: Fixture.at(1))
        let estimator = try #require(state.estimator as? CountingEstimator)
        #expect(estimator.batches == 1 && estimator.singles == 0)
        #expect(change.events.filter { if case .calibrated = $0 { true } else { false } }.count == 1, "\(change.events)")
        #expect(change.published?.status == .synchronized)
        #expect(state.estimator.samples.count == 8)
    }

    @Test func aRestoredSourcesHistoryJoinsItsFirstAnswersCall() throws {
        var state = CalibrationState(estimator: CountingEstimator(), minimumAgreeingSources: 1, offsetChangeThreshold: .milliseconds(1))
        let stored = try (0..<4).map { try Fixture.exchange("a", offset: 0, at: Fixture.at(Double($0))) }
        _ = state.restore(stored)
        let change = state.add(try Self.measurement(from: Fixture.at(10)), at: Fixture.at(11))
        let estimator = try #require(state.estimator as? CountingEstimator)
        #expect(estimator.batches == 1 && estimator.singles == 0, "history and samples in one call")
        #expect(estimator.historyOffered == 4)
        #expect(change.events.filter { if case .calibrated = $0 { true } else { false } }.count == 1, "\(change.events)")
        #expect(state.estimator.samples.count == 12, "the history agreed and was taken")
        #expect(state.history.isEmpty)
    }

    @Test func aMeasurementReachesSubscribersAsOneEventAndTheStoreAsOneWrite() async throws {
        let base = ManualTimeBase()
        let store = MemoryCalibrationStore()
        let clock = ServerClock(
            timeBase: base, configuration: .init(minimumAgreeingSources: 2, persistence: PersistencePolicy(writesInBackground: false)),
            store: store, keyProvider: FixedCalibrationKey(seed: 1))
        var events = clock.events().makeAsyncIterator()
        let samples = try Self.measurement(from: base.monotonicNow())
        base.advance(by: .seconds(1))
        clock.calibrate(with: samples)
        clock.reject(source: "marker", reason: "end of the batch's events")
        var seen: [ServerClockEvent] = []
        while let event = await events.next() {
            if case .sampleRejected = event { break }
            seen.append(event)
        }
        #expect(seen.filter { if case .calibrated = $0 { true } else { false } }.count == 1, "\(seen)")
        #expect(store.saves == 1)
        #expect(clock.reading().status == .synchronized)
    }
}
