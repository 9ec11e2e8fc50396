import Foundation
import Testing
import TimeSync
import TimeSyncFixtures
import TimeSyncTesting

/// `now` reads the published model without a lock: it must agree with `reading()` to the nanosecond,
/// and concurrent readers must never see half of one calibration and half of another.
@Suite struct PublishedReadTests {
    @Test func nowEqualsTheReadingsServerTimeExactly() throws {
        var generator = SeededGenerator(seed: 11)
        var checked = 0
        for _ in 0..<100 {
            let base = ManualTimeBase()
            let clock = ServerClock(timeBase: base)
            let start = base.monotonicNow().nanoseconds
            let offset = Int64.random(in: -1_000_000_000_000...1_000_000_000_000, using: &generator)
            let drift = Double.random(in: -80e-6...80e-6, using: &generator)
            for _ in 0..<6 {
                let t1 = base.monotonicNow()
                let theta = offset + Int64(drift * Double(t1.nanoseconds - start))
                clock.calibrate(with: try Fixture.exchange(offset: theta, at: t1, forward: 3_000_000, backward: 3_000_000))
                base.advance(by: .seconds(Int64.random(in: 1...900, using: &generator)))
            }
            #expect(clock.isSynchronized)
            for _ in 0..<20 {
                base.advance(by: .nanoseconds(Int64.random(in: 0...100_000_000_000, using: &generator)))
                #expect(clock.now == clock.reading().serverTime)
                checked += 1
            }
            #expect(clock.calibration.map { $0.model.rate.estimate != 0 } ?? false, "a measured rate makes rounding matter")
        }
        #expect(checked == 2000)
    }

    @Test func concurrentReadersNeverSeeATornCalibration() async throws {
        // Frozen time: each calibration gives one exact reading, so a reader's value tells which
        // calibration it saw — or that it saw a mix of two.
        let base = ManualTimeBase()
        let now = base.monotonicNow()
        var samples: [OffsetSample] = []
        for k in Int64(0)..<8 {
            let sent = now.advanced(by: .seconds(-10 * k - 1))
            let leg: Int64 = (k + 1) * 1_000_000
            samples.append(try Fixture.exchange(offset: k * 1_000_000_123 + 7, at: sent, forward: leg, backward: leg))
        }
        var allowed: Set<[Int64]> = []
        for sample in samples {
            let single = ServerClock(timeBase: base)
            single.calibrate(with: sample)
            let reading = single.reading()
            allowed.insert([reading.serverTime.nanoseconds, reading.earliest.nanoseconds, reading.latest.nanoseconds])
        }
        #expect(allowed.count == samples.count)
        let allowedNow = Set(allowed.map { $0[0] } + [base.wallNow().nanoseconds])
        let allowedReadings = allowed
        let calibrations = samples

        let clock = ServerClock(timeBase: base)
        let done = Locked(false)
        let writer = Task.detached {
            for round in 0..<4000 {
                clock.reset()
                clock.calibrate(with: calibrations[round % calibrations.count])
            }
            done.withLock { $0 = true }
        }
        let readers = (0..<2).map { _ in
            Task.detached { () -> (reads: Int, torn: Int) in
                var reads = 0
                var torn = 0
                while !done.withLock({ $0 }) || reads < 1000 {
                    let value = clock.now.nanoseconds
                    let reading = clock.reading()
                    if !allowedNow.contains(value) { torn += 1 }
                    if reading.status != .unsynchronized,
                        !allowedReadings.contains([reading.serverTime.nanoseconds, reading.earliest.nanoseconds, reading.latest.nanoseconds])
                    {
                        torn += 1
                    }
                    reads += 1
                }
                return (reads, torn)
            }
        }
        await writer.value
        for reader in readers {
            let (reads, torn) = await reader.value
            #expect(reads >= 1000)
            #expect(torn == 0, "\(torn) of \(reads) reads mixed two calibrations")
        }
    }
}
