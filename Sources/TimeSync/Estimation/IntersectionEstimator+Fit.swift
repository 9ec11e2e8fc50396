/// Fitting one source's window: which sample to drop, the rate bounds and the carried intersection.
extension IntersectionEstimator {
    /// The sample to drop from a full window: the widest among all but the newest quarter (ties: the
    /// oldest). Recent samples follow the server; old tight ones measure the rate over a long span.
    static func leastUseful(_ window: [OffsetSample]) -> Int {
        let candidates = window.indices.dropLast(max(1, window.count / 4))
        return candidates.max { window[$0].offset.width < window[$1].offset.width } ?? 0
    }

    /// What the pairs of a window say about the rate.
    enum RateFit: Equatable {
        /// Fewer than two samples at distinct instants.
        case insufficient
        /// The pairs contradict each other or the prior: the server stepped, or a bound was violated.
        case contradictory
        /// Bounds from the pairs, with the least-squares estimate.
        case measured(RateInterval)
    }

    /// Fits one source's window (sorted by time, non-empty), dropping samples that contradict newer
    /// ones for a steady server rate; the bounds then carry each kept sample with the slew allowance
    /// for its age.
    /// - Complexity: O(n²) in the window size, run once per sample.
    static func fit(_ window: inout [OffsetSample], _ configuration: EstimatorConfiguration) -> SourceFit {
        while true {
            var rate = configuration.ratePrior
            if case .measured(let measured) = measuredRate(window, configuration) { rate = measured }
            let newest = window[window.count - 1]
            let (core, firstKept) = CarriedIntersection.newestAgreeing(window, at: newest.time, rate: rate)
            if firstKept == 0 {
                // Each interval carried with the allowance holds the steady one: all agree again.
                let bounds = CarriedIntersection.newestAgreeing(window, at: newest.time, rate: rate, slew: configuration.slewAllowance).bounds
                return SourceFit(source: newest.source, time: newest.time, bounds: bounds, core: core, rate: rate)
            }
            // Older samples contradict newer ones (the server stepped its clock): drop them and refit.
            window.removeFirst(firstKept)
        }
    }

    /// Rate bounds from every pair of samples, widened by the wander allowance and clamped to the
    /// prior; the estimate is the weighted least-squares slope of the midpoints.
    static func measuredRate(_ window: [OffsetSample], _ configuration: EstimatorConfiguration) -> RateFit {
        guard window.count >= 2 else { return .insufficient }
        let phi = configuration.maxDrift
        var lower = -Double.infinity
        var upper = Double.infinity
        for j in 1..<window.count {
            let b = window[j]
            for i in 0..<j {
                let a = window[i]
                let elapsed = Double(b.time.nanoseconds.saturatingSubtract(a.time.nanoseconds))
                guard elapsed > 0 else { continue }
                let slack = phi * Double(a.span + b.span)
                lower = max(lower, (Double(b.offset.lower) - Double(a.offset.upper) - slack) / elapsed)
                upper = min(upper, (Double(b.offset.upper) - Double(a.offset.lower) + slack) / elapsed)
            }
        }
        guard lower.isFinite, upper.isFinite else { return .insufficient }
        lower -= configuration.rateWander
        upper += configuration.rateWander
        guard lower <= upper,
            let bounded = RateInterval(lower: lower, upper: upper).intersection(configuration.ratePrior)
        else { return .contradictory }
        return .measured(RateInterval(lower: bounded.lower, upper: bounded.upper, estimate: slope(window) ?? 0))
    }

    /// Weighted least-squares slope of the sample midpoints over time (weights 1/half-width²).
    static func slope(_ window: [OffsetSample]) -> Double? {
        let t0 = Double(window[0].time.nanoseconds)
        let m0 = Double(window[0].offset.midpoint)
        var sw = 0.0, sx = 0.0, sy = 0.0, sxx = 0.0, sxy = 0.0
        for sample in window {
            let h = max(Double(sample.offset.halfWidth), 1_000)  // floor: 1 µs
            let w = 1 / (h * h)
            let x = Double(sample.time.nanoseconds) - t0
            let y = Double(sample.offset.midpoint) - m0
            sw += w
            sx += w * x
            sy += w * y
            sxx += w * x * x
            sxy += w * x * y
        }
        let denominator = sw * sxx - sx * sx
        guard denominator > 0 else { return nil }
        return (sw * sxy - sx * sy) / denominator
    }
}
