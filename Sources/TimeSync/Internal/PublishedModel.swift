#if canImport(Darwin)
import os
#else
import Synchronization
#endif

/// What ``ServerClock`` publishes for its readers: the synchronization status and the offset model.
package struct PublishedModel: Sendable, Equatable {
    package var status: SynchronizationStatus
    package var model: OffsetModel
    /// Whether the model comes only from a restored store: no source has answered since launch.
    package var restored = false

    /// The status byte as stored for readers: the status's raw value, with ``restoredFlag`` set for a
    /// restored model (so `now`'s byte comparison with unsynchronized, which is never restored, holds).
    var statusByte: UInt8 { status.rawValue | (restored ? Self.restoredFlag : 0) }
    /// The bit of the status byte that marks a restored model.
    static let restoredFlag: UInt8 = 0x80

    package static let unsynchronized = PublishedModel(
        status: .unsynchronized,
        model: OffsetModel(time: MonotonicInstant(nanoseconds: 0), offset: OffsetInterval(exactly: 0), estimate: 0, rate: .symmetric(0)))
}

/// The part of ``PublishedModel`` that the estimate needs.
struct PublishedEstimate {
    /// ``SynchronizationStatus``'s raw value: compared as a byte on the hot path (converting it to
    /// the enum is a function call).
    var statusRawValue: UInt8
    var anchor: Int64
    var estimate: Int64
    /// The rate in fixed point (``Int64/fixedPointRate(_:)``); `nil` for a rate beyond the drift cap,
    /// which only a custom estimator could publish: `now` then takes the saturating path.
    var fixedPointRate: Int64?

    /// Server time at a monotonic reading at or after the anchor: `OffsetModel.estimate(at:)`
    /// plus the reading, on the hot path of ``ServerClock/now``; `nil` before the anchor or where the
    /// sum leaves `Int64` (the caller then takes the saturating path).
    ///
    /// The product cannot trap: published rates come from estimators, inside the drift prior, which
    /// `EstimatorConfiguration` caps at 1 %, so |rate × elapsed| < 2⁵⁷ ns.
    @inline(__always)
    func serverTime(at monotonic: Int64) -> Int64? {
        let elapsed = monotonic &- anchor
        guard elapsed >= 0, let rate = fixedPointRate else { return nil }
        let (offset, o1) = estimate.addingReportingOverflow(Int64.driftTerm(fixedPointRate: rate, elapsed: elapsed))
        let (time, o2) = monotonic.addingReportingOverflow(offset)
        return o1 || o2 ? nil : time
    }

    /// Whether the clock has no calibration (readers then use the device's clock).
    @inline(__always)
    var isUnsynchronized: Bool { statusRawValue == SynchronizationStatus.unsynchronized.rawValue }
}

#if canImport(Darwin)
/// Apple platforms before iOS 18 / macOS 15 have no standard atomics: readers take an unfair lock
/// (uncontended in practice: a handful of loads under it).
final class PublishedModelCell: Sendable {
    private let lock = OSAllocatedUnfairLock(initialState: PublishedModel.unsynchronized)

    init() {}

    @inline(__always)
    func load() -> PublishedModel { lock.withLock { $0 } }

    func store(_ value: PublishedModel) { lock.withLock { $0 = value } }

    @inline(__always)
    func loadEstimate() -> PublishedEstimate {
        let value = load()
        return PublishedEstimate(
            statusRawValue: value.status.rawValue, anchor: value.model.time.nanoseconds, estimate: value.model.estimate,
            fixedPointRate: Int64.fixedPointRate(value.model.rate.estimate))
    }
}
#else
/// A sequence lock: readers never block and never write shared memory, so concurrent readers scale
/// with cores; the single writer (``ServerClock`` serializes writers under its state lock) bumps the
/// sequence to odd, stores the fields, and bumps it to even. Every field is an atomic, so a reader that
/// races a writer sees torn values only in a snapshot it then discards: no data race.
final class PublishedModelCell: Sendable {
    private let sequence = Atomic<UInt64>(0)
    private let status = Atomic<UInt8>(0)
    private let anchor = Atomic<Int64>(0)
    private let lower = Atomic<Int64>(0)
    private let upper = Atomic<Int64>(0)
    private let estimate = Atomic<Int64>(0)
    private let rateLower = Atomic<UInt64>(0)
    private let rateUpper = Atomic<UInt64>(0)
    private let rateEstimate = Atomic<UInt64>(0)
    private let slewRate = Atomic<UInt64>(0)
    private let slewLimit = Atomic<Int64>(0)
    /// The rate estimate in fixed point for `now`; `Int64.min` when beyond the drift cap.
    private let fixedPointRate = Atomic<Int64>(0)

    init() {}

    @inline(__always)
    func load() -> PublishedModel {
        while true {
            let before = sequence.load(ordering: .acquiring)
            let status = self.status.load(ordering: .relaxed)
            let anchor = self.anchor.load(ordering: .relaxed)
            let lower = self.lower.load(ordering: .relaxed)
            let upper = self.upper.load(ordering: .relaxed)
            let estimate = self.estimate.load(ordering: .relaxed)
            let rateLower = self.rateLower.load(ordering: .relaxed)
            let rateUpper = self.rateUpper.load(ordering: .relaxed)
            let rateEstimate = self.rateEstimate.load(ordering: .relaxed)
            let slewRate = self.slewRate.load(ordering: .relaxed)
            let slewLimit = self.slewLimit.load(ordering: .relaxed)
            atomicMemoryFence(ordering: .acquiring)
            let after = sequence.load(ordering: .relaxed)
            guard before == after, before & 1 == 0 else { continue }
            return PublishedModel(
                status: Self.status(status & ~PublishedModel.restoredFlag),
                model: OffsetModel(
                    time: MonotonicInstant(nanoseconds: anchor),
                    offset: OffsetInterval(uncheckedLower: lower, upper: max(lower, upper)),
                    estimate: estimate,
                    rate: RateInterval(
                        trustedLower: Double(bitPattern: rateLower), upper: Double(bitPattern: rateUpper),
                        estimate: Double(bitPattern: rateEstimate)),
                    slew: SlewAllowance(trustedRate: Double(bitPattern: slewRate), limit: slewLimit)),
                restored: status & PublishedModel.restoredFlag != 0)
        }
    }

    /// The status from its stored byte, inline (the enum's `init(rawValue:)` is a function call).
    @inline(__always)
    private static func status(_ rawValue: UInt8) -> SynchronizationStatus {
        switch rawValue {
        case SynchronizationStatus.synchronized.rawValue: .synchronized
        case SynchronizationStatus.noMajority.rawValue: .noMajority
        case SynchronizationStatus.provisional.rawValue: .provisional
        default: .unsynchronized
        }
    }

    /// Only what ``ServerClock/now`` needs: four loads instead of eight.
    @inline(__always)
    func loadEstimate() -> PublishedEstimate {
        while true {
            let before = sequence.load(ordering: .acquiring)
            let status = self.status.load(ordering: .relaxed)
            let anchor = self.anchor.load(ordering: .relaxed)
            let estimate = self.estimate.load(ordering: .relaxed)
            let rate = self.fixedPointRate.load(ordering: .relaxed)
            atomicMemoryFence(ordering: .acquiring)
            let after = sequence.load(ordering: .relaxed)
            guard before == after, before & 1 == 0 else { continue }
            return PublishedEstimate(
                statusRawValue: status, anchor: anchor, estimate: estimate, fixedPointRate: rate == .min ? nil : rate)
        }
    }

    /// Publishes a new value. Callers must serialize calls (one writer at a time).
    func store(_ value: PublishedModel) {
        let start = sequence.load(ordering: .relaxed)
        sequence.store(start &+ 1, ordering: .relaxed)
        atomicMemoryFence(ordering: .releasing)
        status.store(value.statusByte, ordering: .relaxed)
        anchor.store(value.model.time.nanoseconds, ordering: .relaxed)
        lower.store(value.model.offset.lower, ordering: .relaxed)
        upper.store(value.model.offset.upper, ordering: .relaxed)
        estimate.store(value.model.estimate, ordering: .relaxed)
        rateLower.store(value.model.rate.lower.bitPattern, ordering: .relaxed)
        rateUpper.store(value.model.rate.upper.bitPattern, ordering: .relaxed)
        rateEstimate.store(value.model.rate.estimate.bitPattern, ordering: .relaxed)
        slewRate.store(value.model.slew.rate.bitPattern, ordering: .relaxed)
        slewLimit.store(value.model.slew.limit, ordering: .relaxed)
        fixedPointRate.store(Int64.fixedPointRate(value.model.rate.estimate) ?? .min, ordering: .relaxed)
        sequence.store(start &+ 2, ordering: .releasing)
    }
}
#endif
