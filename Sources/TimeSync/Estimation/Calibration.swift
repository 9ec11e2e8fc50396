/// What an estimator concluded: θ = server time − monotonic time as a linear model anchored at one
/// monotonic instant, with hard bounds that widen as the anchor ages.
///
/// At a monotonic instant `t` with Δ = t − ``time``:
/// - bounds: `[offset.lower + rate.lower·Δ − s, offset.upper + rate.upper·Δ + s]` (Δ ≥ 0), where
///   `s = min(slew.rate·Δ, slew.limit)` allows for a server whose clock is being slewed (``slew``);
/// - estimate: `estimate + rate.estimate·Δ`, clamped into the bounds.
/// Reading it is a handful of arithmetic operations: ``ServerClock/now`` does exactly this.
public struct Calibration: Sendable, Hashable, Codable {
    /// The anchor: the monotonic instant the bounds refer to.
    public var time: MonotonicInstant
    /// Hard bounds on θ at ``time``, in nanoseconds.
    public var offset: OffsetInterval
    /// The best estimate of θ at ``time``, in nanoseconds; inside ``offset``.
    public var estimate: Int64
    /// Bounds and estimate of the rate at which θ changes (the local clock's frequency error).
    public var rate: RateInterval
    /// The sources that agreed on this calibration.
    public var sources: [String]
    /// How far the servers' clocks may move off their steady rate after ``time`` (a time daemon
    /// slewing them): the bounds widen by it as well.
    public var slew: SlewAllowance

    /// Creates a calibration; the estimate is clamped into the bounds.
    public init(
        time: MonotonicInstant, offset: OffsetInterval, estimate: Int64, rate: RateInterval, sources: [String],
        slew: SlewAllowance = .none
    ) {
        self.time = time
        self.offset = offset
        self.estimate = offset.clamp(estimate)
        self.rate = rate
        self.sources = sources
        self.slew = slew
    }

    /// Decodes a calibration through the same checks as a computed one: the anchor inside
    /// ``SampleLimits/monotonicInstants``, a rate within the 1 % drift cap, the estimate clamped into
    /// the bounds.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let time = try container.decode(MonotonicInstant.self, forKey: .time)
        let rate = try container.decode(RateInterval.self, forKey: .rate)
        guard SampleLimits.monotonicInstants.contains(time.nanoseconds) else {
            throw DecodingError.dataCorruptedError(forKey: .time, in: container, debugDescription: "anchor out of range")
        }
        guard rate.maxMagnitude <= EstimatorConfiguration.maximumDrift else {
            throw DecodingError.dataCorruptedError(forKey: .rate, in: container, debugDescription: "rate beyond the drift cap")
        }
        self.init(
            time: time, offset: try container.decode(OffsetInterval.self, forKey: .offset),
            estimate: try container.decode(Int64.self, forKey: .estimate), rate: rate,
            sources: try container.decode([String].self, forKey: .sources),
            slew: try container.decodeIfPresent(SlewAllowance.self, forKey: .slew) ?? .none)
    }

    /// The linear model alone (no source names): what ``ServerClock`` publishes to its readers.
    public var model: OffsetModel { OffsetModel(time: time, offset: offset, estimate: estimate, rate: rate, slew: slew) }

    /// The estimate and bounds of θ at a monotonic instant.
    /// - Complexity: O(1), no allocation.
    public func offset(at instant: MonotonicInstant) -> (estimate: Int64, bounds: OffsetInterval) {
        model.offset(at: instant)
    }
}

/// θ = server time − monotonic time as a linear model: the arithmetic of ``Calibration`` on plain
/// values, cheap to copy and to evaluate.
public struct OffsetModel: Sendable, Hashable {
    /// The anchor instant.
    public var time: MonotonicInstant
    /// Bounds on θ at the anchor.
    public var offset: OffsetInterval
    /// The estimate of θ at the anchor.
    public var estimate: Int64
    /// The rate of change of θ.
    public var rate: RateInterval
    /// The servers' allowed departure from a steady rate, added to the bounds.
    public var slew: SlewAllowance

    /// Creates a model.
    @inlinable
    public init(time: MonotonicInstant, offset: OffsetInterval, estimate: Int64, rate: RateInterval, slew: SlewAllowance = .none) {
        self.time = time
        self.offset = offset
        self.estimate = estimate
        self.rate = rate
        self.slew = slew
    }

    /// The estimate and bounds of θ at a monotonic instant.
    /// - Complexity: O(1), no allocation.
    @inlinable
    public func offset(at instant: MonotonicInstant) -> (estimate: Int64, bounds: OffsetInterval) {
        let elapsed = instant.nanoseconds.saturatingSubtract(time.nanoseconds)
        let bounds = rate.age(offset, by: Double(elapsed)).widened(by: slew.widening(over: elapsed))
        return (bounds.clamp(estimate.saturatingAdd(Int64.driftTerm(rate: rate.estimate, elapsed: elapsed))), bounds)
    }

    /// The estimate of θ at a monotonic instant, without the bounds: the hot path of
    /// ``ServerClock/now``.
    ///
    /// From the anchor on it needs no clamping: the estimate starts inside the bounds and its rate lies
    /// between theirs, so it stays inside (bounds round outward; the drift term is floored, to within
    /// a nanosecond of exact).
    /// - Complexity: O(1): one multiplication.
    @inlinable
    public func estimate(at instant: MonotonicInstant) -> Int64 {
        let elapsed = instant.nanoseconds.saturatingSubtract(time.nanoseconds)
        guard elapsed >= 0 else { return offset(at: instant).estimate }
        return estimate.saturatingAdd(Int64.driftTerm(rate: rate.estimate, elapsed: elapsed))
    }

    /// The monotonic instant at which the estimated server time reaches `serverTime`
    /// (solves t + θ(t) = serverTime, ignoring clamping).
    public func monotonicInstant(forServerTime serverTime: UnixTime) -> MonotonicInstant {
        let target = Double(serverTime.nanoseconds.saturatingSubtract(time.nanoseconds).saturatingSubtract(estimate))
        return MonotonicInstant(nanoseconds: time.nanoseconds.saturatingAdd(Int64(clamping: target / (1 + rate.estimate))))
    }
}

/// What an estimator says after a change.
public enum EstimatorOutcome: Sendable, Hashable {
    /// Enough sources agree: here is the calibration.
    case calibrated(Calibration)
    /// Sources disagree and no majority agrees on a common interval: there is no trustworthy time.
    case noMajority(sources: Int, largestAgreeing: Int)
    /// The majority's calibration, but a source it rests on has just contradicted its own earlier
    /// samples (its clock stepped or changed rate, or a reply lied): until a second sample confirms
    /// the change or refutes it, nothing vouches for this calibration. A clock keeps it, as
    /// ``SynchronizationStatus/provisional``.
    case contradicted(Calibration)
    /// No samples (yet, or any more).
    case noSamples
}

/// A way of turning samples into a ``Calibration``.
///
/// Estimators are value types with no I/O, so a simulation can run several on the same sample
/// stream and ``ServerClock`` keeps one behind its lock.
public protocol OffsetEstimator: Sendable {
    /// Adds a sample and returns the new outcome.
    mutating func add(_ sample: OffsetSample) -> EstimatorOutcome
    /// Forgets a source (lost, or it asked not to be used) and returns the new outcome.
    mutating func removeSource(_ source: String) -> EstimatorOutcome
    /// The samples the estimator currently keeps (what persistence saves).
    var samples: [OffsetSample] { get }
    /// The sources the estimator currently follows.
    var sources: [String] { get }
    /// A short name for logs and stored calibrations (by default the type's name).
    var name: String { get }
    /// Replays samples an earlier run saved, all at once, into an empty estimator.
    /// - Complexity: The default adds them one by one; ``IntersectionEstimator`` fits each source
    ///   once, linear in the number of samples.
    mutating func restore(_ samples: [OffsetSample]) -> EstimatorOutcome
    /// Offers older samples of one source (restored from a store) after the source has answered
    /// afresh: they may lengthen its history (a better rate) only where they agree with what it says
    /// now, and never change what it says now.
    /// - Returns: The new outcome, or `nil` when the history was not taken (the default: an estimator
    ///   that cannot tell agreeing history from a step ignores it).
    mutating func addHistory(_ samples: [OffsetSample]) -> EstimatorOutcome?
    /// The samples held as suspects: each contradicts its source's other samples and waits for a
    /// second one to confirm a step (by default none: an estimator that holds nothing).
    var suspectSamples: [OffsetSample] { get }
}

extension OffsetEstimator {
    public var name: String { String(describing: Self.self) }

    public mutating func restore(_ samples: [OffsetSample]) -> EstimatorOutcome {
        var outcome = EstimatorOutcome.noSamples
        for sample in samples.sorted(by: { $0.time < $1.time }) { outcome = add(sample) }
        return outcome
    }

    public mutating func addHistory(_ samples: [OffsetSample]) -> EstimatorOutcome? { nil }

    public var suspectSamples: [OffsetSample] { [] }
}
